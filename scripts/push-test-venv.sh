#!/bin/sh
# The Python venv of the Web Push test (tests/push.rs): http_ece and py_vapid, pinned,
# an implementation independent of ours. Made once; skipped when present. The tests call
# this in parallel: one makes the venv under a lock while the others wait for it.
set -eu
VENV="${DJAMBI_PUSH_VENV:-$HOME/.cache/djambi-ci/push-venv}"
ready() {
    [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c "import http_ece, py_vapid" 2>/dev/null
}
if ready; then
    exit 0
fi
mkdir -p "$(dirname "$VENV")"
exec 9>"$VENV.lock"
flock 9
if ready; then
    exit 0
fi
python3 -m venv --clear "$VENV"
"$VENV/bin/pip" install --quiet --disable-pip-version-check --no-cache-dir \
    "http_ece==1.2.1" "py_vapid==1.9.2" "cryptography==44.0.2"
