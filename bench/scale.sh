#!/usr/bin/env bash
# Scale benchmark: the run estimate (libs/sizing, dev.richter.sizing.RunEstimate) of
#   (a) a 100 000 QPS x 4 h plan: pre-test 100 QPS x 60 s, 8 formal steps 12 500 .. 100 000 QPS x 30 min, one scenario,
#       perWorkerQps from --per-worker-qps (default: the plan default, what one worker measurably holds,
#       libs/sizing/src/main/resources/dev/richter/sizing/worker-capacity.properties),
#   (b) the demo plan examples/shop/plan.json, and
#   (c) a 1 000 000 QPS x 1 h plan: pre-test 100 QPS x 60 s, 4 formal steps 250 000 .. 1 000 000 QPS x 15 min,
# all against the AWS quotas (Quotas.AWS) and us-east-1 arm64 list prices, each printed as a table with every figure
# beside its AWS limit (history 25 000 events per execution, Distributed Map 10 000 children at once, account
# concurrency 1 000 Lambda executions less the 100 left for the monitor's other functions, 256 KiB state payload,
# 900 s invocation). See bench/scale/ScaleBench.java.
# Last line (plan a): max_history_events=<n> max_map_concurrency=<n> max_payload_kib=<x> longest_invocation_s=<s> cost_usd=<x>
#   usd_per_million_requests=<x> (and demo_usd_per_million_requests=<x> for plan b): what a million load requests cost;
#   max_qps_default_quotas=<n>: the highest rate of an hour-long step the estimate accepts under AWS's default quotas;
#   usd_per_million=<x>: what a million requests of plan (c) cost
# Exit status: 1 when a figure of any plan is over its AWS limit or the estimate lists a violation.
# Usage: bench/scale.sh [--per-worker-qps N]        (from anywhere; builds functions/plan-api and what it needs)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" scale-bench
# plan-api and the modules it needs, then its classpath
bench_build functions/plan-api -pl functions/plan-api -am
CP="$ROOT/functions/plan-api/target/classes:$(cat "$WORK/cp.txt")"

"$JAVA_HOME/bin/java" -Xmx1g -cp "$CP" bench/scale/ScaleBench.java --demo-plan examples/shop/plan.json "$@" \
  2> >(grep -v -e '^WARNING' -e '^SLF4J' >&2)
