#!/usr/bin/env bash
# Schema-driven fuzzing of a running Herald: starts `npm start` on a scratch DATA_DIR and free
# ports, signs up, creates a project, and runs schemathesis against /openapi.json with the
# project's secret key and the session cookie. Fails on any 5xx (check `not_a_server_error`).
#
#   npm run fuzz                       # 25 examples per operation, seed 1
#   FUZZ_EXAMPLES=5 FUZZ_SEED=7 npm run fuzz
#
# schemathesis is installed once into a virtualenv under ~/.cache/herald (not the repository).
set -euo pipefail
cd "$(dirname "$0")/.."

SCHEMATHESIS_VERSION=4.32.5
VENV="${HERALD_FUZZ_VENV:-$HOME/.cache/herald/fuzz-venv}"
EXAMPLES="${FUZZ_EXAMPLES:-25}"
SEED="${FUZZ_SEED:-1}"
# Left out: sign-in itself (logout would end the session, throttles would answer 429), the
# multipart uploads, billing checkout, portal and webhook (501 by contract without Stripe), and
# deleting the project or regenerating its keys, which would end the run's own credentials.
EXCLUDE='^/(auth/|uploads/|contacts/import$|users/@me/projects/\{id\}/(checkout|billing-portal)$|webhooks/incoming/)'

if [ "$("$VENV/bin/st" --version 2>/dev/null)" != "st, version $SCHEMATHESIS_VERSION" ]; then
  echo "fuzz: installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "schemathesis==$SCHEMATHESIS_VERSION"
fi

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
json_field() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

WORK="$(mktemp -d "${TMPDIR:-/tmp}/herald-fuzz-XXXXXX")"
# Reachable by the `postgres` account, so that as root the cluster stays inside it and goes with it.
chmod 755 "$WORK"
export DATA_DIR="$WORK/data" PORT="$(free_port)" EMBEDDED_POSTGRES_PORT="$(free_port)"
export TEMPORAL_PORT="$(free_port)" TEMPORAL_UI_PORT="$(free_port)" SMTP_RELAY_PORT="$(free_port)"
export RATE_LIMIT_PER_MINUTE=1000000 AUTH_RATE_LIMIT_PER_MINUTE=1000000 LOG_LEVEL=warn
BASE="http://127.0.0.1:$PORT"

setsid npm start >"$WORK/herald.log" 2>&1 &
HERALD=$!
stop() {
  kill -TERM -- "-$HERALD" 2>/dev/null || true
  for _ in $(seq 60); do kill -0 "$HERALD" 2>/dev/null || break; sleep 1; done
  kill -KILL -- "-$HERALD" 2>/dev/null || true
  rm -rf "$WORK"
}
trap stop EXIT

for _ in $(seq 180); do
  curl -fs "$BASE/health" >/dev/null 2>&1 && break
  kill -0 "$HERALD" 2>/dev/null || { echo "fuzz: Herald did not start:"; tail -40 "$WORK/herald.log"; exit 1; }
  sleep 1
done
curl -fs "$BASE/health" >/dev/null || { echo "fuzz: Herald did not answer /health in 180 s"; tail -40 "$WORK/herald.log"; exit 1; }

JAR="$WORK/cookies"
curl -fs -c "$JAR" -H 'content-type: application/json' -d '{"email":"fuzz@example.com","password":"fuzzing password"}' "$BASE/auth/signup" >/dev/null
KEY="$(curl -fs -b "$JAR" -H 'content-type: application/json' -d '{"name":"Fuzz"}' "$BASE/users/@me/projects" | json_field "['secretKey']")"
SESSION="$(awk '$6 == "herald_session" { print $7 }' "$JAR")"

echo "fuzz: Herald at $BASE; schemathesis with $EXAMPLES examples per operation, seed $SEED"
START=$(date +%s)
status=0
"$VENV/bin/st" run "$BASE/openapi.json" \
  --checks not_a_server_error \
  --max-examples "$EXAMPLES" \
  --seed "$SEED" \
  --generation-database none \
  --exclude-path-regex "$EXCLUDE" \
  --exclude-operation-id deleteProject \
  --exclude-operation-id regenerateProjectKeys \
  --header "Authorization: Bearer $KEY" \
  --header "Cookie: herald_session=$SESSION" \
  --request-timeout 30 \
  --workers 2 \
  --no-color >"$WORK/schemathesis.log" 2>&1 || status=$?
# schemathesis closes with a pytest-style banner ("=== 3 warnings in 71.08s ==="), which readers
# of CI output take for a pytest run that executed no test; its banners are printed as plain lines.
sed -E 's/^=+ (.*[^ =]) =+$/schemathesis: \1/; s/^(schemathesis: .*) in ([0-9.]+)s$/\1, \2 s/' "$WORK/schemathesis.log"
echo "fuzz: schemathesis finished in $(($(date +%s) - START)) s with status $status"
if [ "$status" -ne 0 ]; then
  echo "fuzz: server errors logged by Herald:"
  grep -E '"level":(50|60)' "$WORK/herald.log" | tail -20 || true
fi
exit "$status"
