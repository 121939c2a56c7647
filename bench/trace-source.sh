#!/usr/bin/env bash
# Directory trace source benchmark: the second call after a 1% append (read from the cursor) vs a full re-read of the
# same directory by a fresh source, on ~100 MB of generated agent logging-otlp lines; see
# bench/trace-source/TraceSourceBench.java.
# Usage: bench/trace-source.sh [megabytes]      Last line: full_ms=<a> incremental_ms=<b> full_vs_incremental=<x>
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$JAVA_HOME/bin/java" ] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
MB="${1:-100}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
mvn -q -o -pl libs/links compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >/dev/null 2>&1 \
  || mvn -q -pl libs/links compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >/dev/null
CP="$(cat "$WORK/cp.txt"):libs/links/target/classes"
"$JAVA_HOME/bin/java" -Xmx2g -cp "$CP" bench/trace-source/TraceSourceBench.java "$WORK/logs" "$MB"
