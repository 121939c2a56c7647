#!/usr/bin/env bash
# Scale benchmark: the run estimate (libs/sizing, dev.richter.sizing.RunEstimate) of
#   (a) a 100 000 QPS plan: pre-test 100 QPS x 60 s, 8 formal steps 12 500 .. 100 000 QPS x 30 min, one scenario,
#       perWorkerQps from --per-worker-qps (default 1000), and
#   (b) the demo plan examples/shop/plan.json,
# both against the AWS quotas (Quotas.AWS) and us-east-1 list prices, each printed as a table with every figure
# beside its AWS limit (history 25 000 events per execution, Distributed Map 10 000 children at once, account
# concurrency 1 000 Lambda executions, 256 KiB state payload, 900 s invocation). See bench/scale/ScaleBench.java.
# Last line (plan a): max_history_events=<n> max_map_concurrency=<n> max_payload_kib=<x> longest_invocation_s=<s> cost_usd=<x>
# Exit status: 1 when a figure of either plan is over its AWS limit or the estimate lists a violation.
# Usage: bench/scale.sh [--per-worker-qps N]        (from anywhere; builds functions/plan-api and what it needs)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# JDK 21+ (the build targets --release 21): $JAVA_HOME when it is one, else the temurin 25 JDK
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
if ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[1-9]|[3-9][0-9])'; then
  JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
export PATH="$JAVA_HOME/bin:$PATH"
WORK="$(mktemp -d /tmp/richter-scale-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# --- build: plan-api and the modules it needs, then its classpath -----------------------------------------
build() {
  mvn -q "$@" install -DskipTests -pl functions/plan-api -am \
    && mvn -q "$@" -pl functions/plan-api dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt"
}
if ! build -o >"$WORK/build.log" 2>&1 && ! build >>"$WORK/build.log" 2>&1; then
  grep -v '^WARNING' "$WORK/build.log" >&2
  echo "build failed" >&2
  exit 2
fi
CP="$ROOT/functions/plan-api/target/classes:$(cat "$WORK/cp.txt")"

"$JAVA_HOME/bin/java" -Xmx1g -cp "$CP" bench/scale/ScaleBench.java --demo-plan examples/shop/plan.json "$@" \
  2> >(grep -v -e '^WARNING' -e '^SLF4J' >&2)
