#!/usr/bin/env bash
# Cold start of every function's Lambda jar: for each function (its shaded jar functions/<module>/target/*-lambda.jar,
# built by `mvn -B -Plambda package -DskipTests`; BUILD=1 builds them first), REPEAT fresh JVMs (default 3) pinned to
# one core (`taskset -c 0`, -XX:ActiveProcessorCount=1, the template's JAVA_TOOL_OPTIONS), each running
# bench/cold-start/ColdStart.java: the handler loaded from the jar by its own class loader and constructed ("init"), then
# invoked once with a representative event ("first invocation") against a local dynalite (tables from template.yaml) and
# a stub answering EventBridge. Prints per function the jar's MiB zipped / unzipped and the median init and first
# invocation of the runs (every run's figures on stderr).
# JARS=<dir> reads <dir>/<module>-lambda.jar instead (e.g. jars kept from another commit). PEER=<dir> also runs the
# jars of <dir> (e.g. the parent commit's), alternating with these run by run on the same core, and prints the ratios
# init / peer init and first invocation / peer's, then the peer's own summary line (`peer: max_init_ms=...`).
# Last line: max_init_ms=<x> max_jar_mib=<y> (the largest median init; the largest zipped jar).
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" cold-start
REPEAT="${REPEAT:-3}"
JARS="${JARS:-}"
PEER="${PEER:-}"
if [[ "${BUILD:-0}" == 1 ]]; then
  mvn -B -q -o -Plambda install -DskipTests >&2
fi
if [[ ! -d local/node/node_modules ]]; then
  (cd local/node && npm ci --no-audit --no-fund >&2)
fi

"$JAVA_HOME/bin/javac" --release 21 -nowarn -d "$WORK/classes" bench/cold-start/ColdStart.java

PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

# start_ready <name> <command...>: starts a server that prints `READY <what> <port>`, sets PORT to that port
start_ready() {
  local name="$1"; shift
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PIDS+=("$!")
  local i
  for i in $(seq 1 100); do
    PORT="$(awk '/^READY/ {print $3; exit}' "$WORK/$name.out")"
    [[ -n "$PORT" ]] && return 0
    sleep 0.1
  done
  echo "$name did not start: $(cat "$WORK/$name.err")" >&2
  exit 2
}
start_ready dynalite node --require ./local/node/polyfill.cjs local/node/dynalite.cjs --port 0
DDB_PORT="$PORT"
start_ready stub node bench/cold-start/stub.cjs
STUB_PORT="$PORT"
node bench/cold-start/tables.cjs template.yaml "http://127.0.0.1:$DDB_PORT"

export AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench
export AWS_ENDPOINT_URL_DYNAMODB="http://127.0.0.1:$DDB_PORT"
export AWS_ENDPOINT_URL="http://127.0.0.1:$STUB_PORT"   # EventBridge, and any other service a handler calls
export RICHTER_STAGE=bench POWERTOOLS_METRICS_NAMESPACE=Richter
unset JAVA_TOOL_OPTIONS

# function | module | handler | event | its logical ID in template.yaml (the JVM starts with its JAVA_TOOL_OPTIONS)
source "$(dirname "${BASH_SOURCE[0]}")/jvm-opts.sh"
FUNCTIONS=(
  "plan-api|plan-api|dev.richter.api.PlanApiHandler|bench/cold-start/events/plan-api.json|PlanApiFunction"
  "release-leases|plan-api|dev.richter.api.ReleaseLeasesHandler|events/release-leases/run.json|ReleaseLeasesFunction"
  "link-builder|link-builder|dev.richter.links.LinkBuilderHandler|events/link-builder/tree.json|LinkBuilderFunction"
  "checks|checks|dev.richter.checks.ChecksHandler|bench/cold-start/events/checks.json|ChecksFunction"
  "data-construction|data-construction|dev.richter.data.DataConstructionHandler|events/data-construction/run-flow.json|DataConstructionFunction"
  "run-preparation|run-preparation|dev.richter.preparation.RunPreparationHandler|bench/cold-start/events/run-preparation.json|RunPreparationFunction"
  "load-driver|load-driver|dev.richter.loaddriver.LoadDriverHandler|events/load-driver/worker-ref.json|LoadDriverFunction"
  "probe|probe|dev.richter.probe.ProbeHandler|events/probe/round.json|ProbeFunction"
  "fault-decider|fault-decider|dev.richter.decider.FaultDeciderHandler|events/fault-decider/decide.json|FaultDeciderFunction"
  "report|report|dev.richter.report.ReportHandler|bench/cold-start/events/report.json|ReportFunction"
)

median() { sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }
max() { awk -v a="$1" -v b="$2" 'BEGIN {print (b > a ? b : a)}'; }
# run_one <name> <jar> <handler> <event> <opts> <out file>: one fresh JVM, its summary line appended to <out file>
run_one() {
  local line
  # shellcheck disable=SC2086
  line="$(taskset -c 0 "$JAVA_HOME/bin/java" -XX:ActiveProcessorCount=1 $5 -cp "$WORK/classes" \
    ColdStart "$1" "$2" "$3" "$4" 2>"$WORK/$1.err" | grep '^function=')" \
    || { echo "$1 ($2) failed:" >&2; tail -20 "$WORK/$1.err" >&2; exit 2; }
  echo "$line" >&2
  echo "$line" >>"$6"
}
field() { grep -o "$1=[^ ]*" "$2" | cut -d= -f2; }
MAX_INIT=0; MAX_JAR=0; PEER_MAX_INIT=0; PEER_MAX_JAR=0
if [[ -n "$PEER" ]]; then
  printf '%-18s %8s %12s %8s %10s %10s %12s  %s\n' function jar_mib unzipped_mib init_ms invoke_ms init/peer invoke/peer outcome
else
  printf '%-18s %8s %12s %8s %10s  %s\n' function jar_mib unzipped_mib init_ms invoke_ms outcome
fi
for f in "${FUNCTIONS[@]}"; do
  IFS='|' read -r name module handler event logical_id <<<"$f"
  opts="$(function_jvm_opts "$logical_id")"
  if [[ -n "$JARS" ]]; then jar="$JARS/$module-lambda.jar"; else jar="functions/$module/target/$module-lambda.jar"; fi
  [[ -f "$jar" ]] || { echo "missing $jar: run mvn -B -Plambda package -DskipTests (or BUILD=1)" >&2; exit 2; }
  [[ -z "$PEER" || -f "$PEER/$module-lambda.jar" ]] || { echo "missing $PEER/$module-lambda.jar" >&2; exit 2; }
  : >"$WORK/own.txt"; : >"$WORK/peer.txt"
  for r in $(seq 1 "$REPEAT"); do
    run_one "$name" "$jar" "$handler" "$event" "$opts" "$WORK/own.txt"
    [[ -z "$PEER" ]] || run_one "$name" "$PEER/$module-lambda.jar" "$handler" "$event" "$opts" "$WORK/peer.txt"
  done
  init="$(field init_ms "$WORK/own.txt" | median)"
  invoke="$(field invoke_ms "$WORK/own.txt" | median)"
  zipped="$(field jar_mib "$WORK/own.txt" | head -1)"
  unzipped="$(field unzipped_mib "$WORK/own.txt" | head -1)"
  outcome="$(field outcome "$WORK/own.txt" | sort | uniq -c | awk '{printf "%s%s×%s", (NR>1?",":""), $2, $1}')"
  MAX_INIT="$(max "$MAX_INIT" "$init")"
  MAX_JAR="$(max "$MAX_JAR" "$zipped")"
  if [[ -n "$PEER" ]]; then
    peer_init="$(field init_ms "$WORK/peer.txt" | median)"
    peer_invoke="$(field invoke_ms "$WORK/peer.txt" | median)"
    PEER_MAX_INIT="$(max "$PEER_MAX_INIT" "$peer_init")"
    PEER_MAX_JAR="$(max "$PEER_MAX_JAR" "$(field jar_mib "$WORK/peer.txt" | head -1)")"
    printf '%-18s %8s %12s %8s %10s %10.2f %12.2f  %s\n' "$name" "$zipped" "$unzipped" "$init" "$invoke" \
      "$(awk -v a="$init" -v b="$peer_init" 'BEGIN {print a / b}')" \
      "$(awk -v a="$invoke" -v b="$peer_invoke" 'BEGIN {print a / b}')" "$outcome"
  else
    printf '%-18s %8s %12s %8s %10s  %s\n' "$name" "$zipped" "$unzipped" "$init" "$invoke" "$outcome"
  fi
done
[[ -z "$PEER" ]] || echo "peer: max_init_ms=$PEER_MAX_INIT max_jar_mib=$PEER_MAX_JAR"
echo "max_init_ms=$MAX_INIT max_jar_mib=$MAX_JAR"
