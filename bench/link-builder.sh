#!/usr/bin/env bash
# link-builder benchmark: ingest vs plain Jackson parse, closure rows per new edge, tree query at depth 10.
# Generates ~220 000 OTLP spans over 1 000 services (12 layers, call cycles), see bench/link-builder/LinkBench.java.
# Starts an in-memory dynalite with npx for the tree query (falls back to the in-memory closure, and says so).
# Usage: bench/link-builder.sh [spans]        Last line: ingest_vs_parse=<x> items_per_edge=<y> tree_query_ms=<z>
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[ -x "$JAVA_HOME/bin/java" ] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
SPANS="${1:-220000}"
WORK="$(mktemp -d)"
DYNALITE_PID=""
cleanup() {
  # dynalite runs in its own process group (setsid): stop npx and its node child together
  if [ -n "$DYNALITE_PID" ]; then kill -- "-$DYNALITE_PID" 2>/dev/null || kill "$DYNALITE_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

mvn -q -o -pl libs/links test-compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >/dev/null 2>&1 \
  || mvn -q -pl libs/links test-compile dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >/dev/null
# the links table is created as the tests create it (LinkTables, in the links test classes)
CP="$(cat "$WORK/cp.txt"):libs/links/target/classes:libs/links/target/test-classes"

PORT="${DYNALITE_PORT:-4599}"
if [ -z "${AWS_ENDPOINT_URL_DYNAMODB:-}" ] && command -v npx >/dev/null 2>&1; then
  setsid npx -y dynalite@4.0.0 --port "$PORT" >"$WORK/dynalite.log" 2>&1 &
  DYNALITE_PID=$!
  for _ in $(seq 1 60); do
    if grep -q "listening" "$WORK/dynalite.log" 2>/dev/null; then break; fi
    sleep 0.5
  done
  if grep -q "listening" "$WORK/dynalite.log"; then
    export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$PORT"
  else
    echo "dynalite did not start; tree query will use the in-memory closure" >&2
  fi
fi
export AWS_ACCESS_KEY_ID="${AWS_ACCESS_KEY_ID:-x}" AWS_SECRET_ACCESS_KEY="${AWS_SECRET_ACCESS_KEY:-x}" AWS_REGION="${AWS_REGION:-us-east-1}"

"$JAVA_HOME/bin/java" -Xmx3g -cp "$CP" bench/link-builder/LinkBench.java "$SPANS"
