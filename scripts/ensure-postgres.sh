#!/usr/bin/env bash
# Makes sure a PostgreSQL server answers for the tests, starting one when none runs.
# Prints the URL the tests should use (DJAMBI_TEST_PG_URL) on stdout.
#
# Order: an already running server at $DJAMBI_TEST_PG_URL or 127.0.0.1:5432; else the
# machine's cluster (pg_ctlcluster); else a throwaway cluster under $TMPDIR on port 55432.
set -euo pipefail

url="${DJAMBI_TEST_PG_URL:-postgres://postgres@127.0.0.1:5432/postgres}"

ready() { pg_isready -q -d "$1" >/dev/null 2>&1; }

if ready "$url"; then
  echo "$url"
  exit 0
fi

if command -v pg_ctlcluster >/dev/null 2>&1 && [ -d /etc/postgresql ]; then
  for version in $(ls /etc/postgresql 2>/dev/null); do
    echo "starting PostgreSQL $version (pg_ctlcluster)" >&2
    pg_ctlcluster --skip-systemctl-redirect "$version" main start >&2 2>&1 || true
  done
  for _ in $(seq 1 30); do
    if ready "$url"; then echo "$url"; exit 0; fi
    sleep 1
  done
fi

# A throwaway cluster, owned by the postgres user when we are root.
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$bin" ]; then
  echo "no PostgreSQL server found: install postgresql (apt-get install postgresql)" >&2
  exit 1
fi
dir="${TMPDIR:-/tmp}/djambi-pg"
port=55432
url="postgres://postgres@127.0.0.1:$port/postgres"
if ready "$url"; then echo "$url"; exit 0; fi
run_as=()
if [ "$(id -u)" = 0 ]; then run_as=(runuser -u postgres --); fi
if [ ! -f "$dir/PG_VERSION" ]; then
  rm -rf "$dir" && mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres "$dir"
  "${run_as[@]}" "$bin/initdb" -D "$dir" -U postgres -A trust >&2
fi
echo "starting a throwaway PostgreSQL cluster in $dir on port $port" >&2
"${run_as[@]}" "$bin/pg_ctl" -D "$dir" -o "-p $port -k /tmp -c listen_addresses=127.0.0.1" -l "$dir/log" -w start >&2
ready "$url" || { echo "PostgreSQL did not start; see $dir/log" >&2; exit 1; }
echo "$url"
