#!/usr/bin/env bash
# Installs the Temporal time-skipping test server (Java) for temporal/test-server.sh:
# its runtime classpath from Maven Central into
#   ${XDG_CACHE_HOME:-$HOME/.cache}/herald/temporal-test-server/<version>/lib
# and an AppCDS archive (server.jsa) beside it, made by running the server once, so that
# a cold JVM accepts connections well inside the 5 seconds the Temporal SDK allows.
# Idempotent: when both are there and the archive still fits this JVM it only says so.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
version="$(sed -n 's:.*<temporal-test-server.version>\(.*\)</temporal-test-server.version>.*:\1:p' "$here/pom.xml")"
home="${XDG_CACHE_HOME:-$HOME/.cache}/herald/temporal-test-server/$version"
archive="$home/server.jsa"
# An archive is only usable with the GC and classpath it was made with: those of test-server.sh.
jvm_flags=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)

command -v java >/dev/null || { echo "install-test-server: java (17+) is required on PATH" >&2; exit 1; }

archive_fits() {
  [ -f "$archive" ] &&
    java "${jvm_flags[@]}" -Xshare:on "-XX:SharedArchiveFile=$archive" -cp "$home/lib/*" -version >/dev/null 2>&1
}

if [ -f "$home/lib/.complete" ] && archive_fits; then
  echo "Temporal test server $version: already installed in $home"
  exit 0
fi

did=()
if [ ! -f "$home/lib/.complete" ]; then
  command -v mvn >/dev/null || { echo "install-test-server: mvn is required on PATH to fetch the test server" >&2; exit 1; }
  mkdir -p "$home"
  staging="$(mktemp -d "$home/lib.XXXXXX")"
  trap 'rm -rf "$staging"' EXIT
  if ! mvn -B -q -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
    -DoutputDirectory="$staging" >"$home/mvn.log" 2>&1; then
    echo "install-test-server: mvn could not fetch io.temporal:temporal-test-server:$version:" >&2
    cat "$home/mvn.log" >&2
    exit 1
  fi
  chmod 755 "$staging"
  touch "$staging/.complete"
  rm -rf "$home/lib"
  mv "$staging" "$home/lib"
  trap - EXIT
  did+=("fetched $(find "$home/lib" -name '*.jar' | wc -l) jars")
fi

# Dump the archive from a real run: start, answer one GetSystemInfo call, stop.
rm -f "$archive"
port=$((20000 + RANDOM % 40000))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((20000 + RANDOM % 40000)); done
log="$home/archive-dump.log"
TEMPORAL_TEST_SERVER_JAVA_OPTS="-XX:ArchiveClassesAtExit=$archive" "$here/test-server.sh" "$port" >"$log" 2>&1 &
pid=$!
for _ in $(seq 1 600); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
if command -v curl >/dev/null; then
  printf '\0\0\0\0\0' | curl -s --max-time 10 --http2-prior-knowledge -H 'content-type: application/grpc' -H 'te: trailers' \
    --data-binary @- "http://127.0.0.1:$port/temporal.api.workflowservice.v1.WorkflowService/GetSystemInfo" -o /dev/null || :
fi
kill -TERM "$pid" 2>/dev/null || :
wait "$pid" || :
if archive_fits; then
  did+=("made the class data archive")
else
  rm -f "$archive"
  did+=("could not make a class data archive (see $log), the server will start slower")
fi

summary="$(printf '%s; ' "${did[@]}")"
echo "Temporal test server $version: ${summary%; } in $home"
