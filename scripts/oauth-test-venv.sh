#!/bin/sh
# The Python venv of the OAuth 2.0 test with a real client library (tests/oauth_client.rs):
# Authlib and requests, pinned with their dependencies, an implementation independent of
# ours. Made once; skipped when present. Prints the venv's python. Tests may call this in
# parallel: one makes the venv under a lock while the others wait for it.
set -eu
VENV="${DJAMBI_OAUTH_VENV:-$HOME/.cache/djambi-ci/oauth-venv}"
ready() {
    [ -x "$VENV/bin/python" ] &&
        "$VENV/bin/python" -c "import authlib, requests; assert authlib.__version__ == '1.9.10'" 2>/dev/null
}
if ! ready; then
    mkdir -p "$(dirname "$VENV")"
    exec 9>"$VENV.lock"
    flock 9
    if ! ready; then
        python3 -m venv --clear "$VENV" >&2
        "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir --no-deps \
            "Authlib==1.9.10" "joserfc==1.8.0" "cryptography==50.0.2" "cffi==2.1.1" \
            "pycparser==3.12" "requests==2.34.2" "certifi==2026.10.19.post1" \
            "charset-normalizer==3.5.3" "idna==3.20" "urllib3==2.8.0" >&2
        "$VENV/bin/pip" check --disable-pip-version-check >&2
    fi
fi
echo "$VENV/bin/python"
