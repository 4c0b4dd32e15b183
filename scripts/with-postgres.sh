#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL cluster: initdb in a temporary directory, a server
# on a free loopback port, and CROSSMATE_TEST_POSTGRES_URL pointing at a fresh database.
# Installs Debian's postgresql when initdb is missing and apt-get is there; fails when it still
# cannot start one (CROSSMATE_SKIP_POSTGRES=1 runs without it, for a local run only).
# Tests run it with fsync off (nothing there needs the disk); benchmarks set CROSSMATE_PG_FSYNC=on.
# Usage: scripts/with-postgres.sh COMMAND [ARGS...]
set -euo pipefail

find_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
bin="$(find_bin)"
if [ -z "$bin" ] && command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
    echo "with-postgres: installing postgresql"
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin="$(find_bin)"
fi
if [ -z "$bin" ]; then
    # Without PostgreSQL half the store suite and the two-instance tests would not run, and a
    # green run would say nothing about them: fail, unless someone opts out on purpose.
    if [ "${CROSSMATE_SKIP_POSTGRES:-}" = 1 ]; then
        echo "with-postgres: no PostgreSQL found; CROSSMATE_SKIP_POSTGRES=1, so running without it"
        exec "$@"
    fi
    echo "with-postgres: no PostgreSQL found and it could not be installed (set CROSSMATE_SKIP_POSTGRES=1 to run without it)" >&2
    exit 1
fi

dir="$(mktemp -d /tmp/crossmate-pg.XXXXXX)"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
as_owner=()
if [ "$(id -u)" = 0 ]; then
    # initdb refuses to run as root; the cluster belongs to the postgres user.
    id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
    chown postgres "$dir"
    as_owner=(runuser -u postgres --)
fi
cleanup() {
    "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    rm -rf "$dir"
}
trap cleanup EXIT

"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust --no-sync >/dev/null
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=${CROSSMATE_PG_FSYNC:-off} -c max_connections=200" start >/dev/null
"${as_owner[@]}" "$bin/createdb" -h 127.0.0.1 -p "$port" -U postgres crossmate_test
# How a test restarts this cluster (`$CROSSMATE_TEST_POSTGRES_CTL restart -m fast -w`): the
# tests of what a database restart does to a running server.
export CROSSMATE_TEST_POSTGRES_CTL="${as_owner[*]} $bin/pg_ctl -D $dir/data"
export CROSSMATE_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/crossmate_test"
# The same database over the cluster's Unix socket (README: PostgreSQL on this machine).
export CROSSMATE_TEST_POSTGRES_SOCKET_URL="postgres://postgres@localhost:$port/crossmate_test?host=$dir"
echo "with-postgres: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') at $CROSSMATE_TEST_POSTGRES_URL"
"$@"
