#!/usr/bin/env bash
# Runs the Temporal time-skipping test server (Java) on 127.0.0.1:<port>.
#
# Usage: temporal/test-server.sh <port>
#
# The Temporal SDK's TestWorkflowEnvironment.createTimeSkipping starts this as an
# `existing-path` executable and gives it about 5 seconds to accept connections. When a
# server already listens on <port> (test/support/temporal.ts starts one first, with more
# time to come up), this script only waits until it is terminated; the SDK's teardown kills
# it with SIGKILL, so the wait runs no child process that could be left behind. Otherwise
# it becomes the Java server itself (exec), with the flags that keep a cold JVM fast: class
# data sharing from the archive made by install-test-server.sh, C1 only, serial GC.
# TEMPORAL_TEST_SERVER_JAVA_OPTS adds JVM options (install-test-server.sh uses it).
set -euo pipefail

port="${1:?usage: test-server.sh <port>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  trap 'exit 0' TERM INT
  # Block without a child process: a read on a pipe whose write end we hold never returns.
  exec {never}<> <(:)
  while :; do read -r -u "$never" _ || :; done
fi

version="$(sed -n 's:.*<temporal-test-server.version>\(.*\)</temporal-test-server.version>.*:\1:p' "$here/pom.xml")"
home="${XDG_CACHE_HOME:-$HOME/.cache}/herald/temporal-test-server/$version"
if [ ! -f "$home/lib/.complete" ]; then
  "$here/install-test-server.sh" >&2
fi

java_opts=(-XX:TieredStopAtLevel=1 -XX:+UseSerialGC)
if [ -f "$home/server.jsa" ]; then
  java_opts+=("-XX:SharedArchiveFile=$home/server.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off)
fi
# shellcheck disable=SC2206 # word splitting of the extra options is intended
java_opts+=(${TEMPORAL_TEST_SERVER_JAVA_OPTS:-})

exec java "${java_opts[@]}" -cp "$home/lib/*" io.temporal.testserver.TestServer "$port"
