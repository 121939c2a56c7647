#!/usr/bin/env bash
# The CI gate catching a regression, on this machine: `./richter run` twice against the demo shop, the second time
# with the shop made slower on purpose, and flagged.
#
#   1. starts the local stack (`./richter stack` in the background, `./richter wait --pid`), registers the demo shop's
#      services and safety configuration as `./richter demo` does (`./richter shop configure`), starts the shop
#      (examples/shop/shop.sh, its agent extension loading its isolation from the local API) and warms it with 20 real
#      orders (`./richter shop warm`);
#   2. runs `./richter run --plan examples/ci/plan.json` (the plan's first run: nothing to compare with): exit 0;
#   3. starts the shop's inventory again with SHOP_STORE_LATENCY_MS (default 50 ms: every reservation holds its
#      transaction that much longer), warms the shop again, and runs the same command: the run passes, but each formal
#      step's p99 rose by more than 20 % and 20 ms against the first run, so it exits 2 and prints the regressions;
#      then prints them again from `GET /runs/{runId}/compare?with=previous`, with each step's p99 of both runs;
#   4. stops everything it started (trap on exit), and exits 0 when the two runs exited 0 then 2, else 1.
#
# Takes about 5 1/2 minutes on a 2-core machine once Richter and the shop are built (5 min 25 s here; on a fresh
# checkout the stack's `mvn install -DskipTests` and the shop's build add a few minutes): two runs of about 1 min 40 s
# each, the shop's JVMs starting (about 40 s, and inventory again, about 25 s with its warming), the stack's start. Needs what `./richter demo` needs (JDK 21+,
# Maven, Node.js 20+ and npm; redis-server, installed by shop.sh when missing), plus curl and jq, and the ports of the
# local stack (3000, 3001, 4010, 4020, 4567, 4583) and of the shop (18080-18083, 18092, 18093) free.
#
# Usage: examples/ci/regression-demo.sh        (env: SHOP_STORE_LATENCY_MS of the slower run, default 50;
#                                               RICHTER_TEAM, default shop-team; REGRESSION_DEMO_OUT, default
#                                               build/regression-demo: the runs' reports, JUnit files and the stack's log)
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT="$PWD"
API=http://127.0.0.1:3000
TEAM="${RICHTER_TEAM:-shop-team}"
SLOW_MS="${SHOP_STORE_LATENCY_MS:-50}"
unset SHOP_STORE_LATENCY_MS  # the first run's shop is the plain one
OUT="${REGRESSION_DEMO_OUT:-build/regression-demo}"
PLAN=examples/ci/plan.json

command -v jq >/dev/null || { echo "regression-demo: needs jq (apt-get install jq)" >&2; exit 1; }
if curl -sf -o /dev/null --max-time 2 "$API/openapi.json"; then
  echo "regression-demo: an API already answers at $API: stop that stack first (this demo starts its own)" >&2
  exit 1
fi
rm -rf "$OUT" && mkdir -p "$OUT"

stack_pid=""
shop_started=0
cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  echo "== stopping what the demo started"
  if ((shop_started)); then examples/shop/shop.sh stop; fi
  if [[ -n "$stack_pid" ]]; then
    kill -TERM "$stack_pid" 2>/dev/null
    wait "$stack_pid" 2>/dev/null
    tail -n 1 "$OUT/stack.log"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

step() { echo; echo "== $* ($SECONDS s)"; }

step "starting the local stack (./richter stack; its output in $OUT/stack.log)"
./richter stack >"$OUT/stack.log" 2>&1 &
stack_pid=$!
if ! ./richter wait --pid "$stack_pid"; then
  tail -n 30 "$OUT/stack.log" >&2
  exit 1
fi
TOKEN="$(./richter token --team "$TEAM" --sub regression-demo)"
SHOP_TOKEN="$(./richter token --team "$TEAM" --sub shop-agent)"
export SHOP_ISOLATION_URL="$API/safety/isolation" SHOP_ISOLATION_TOKEN="$SHOP_TOKEN"

step "registering the shop's services and safety configuration for team $TEAM (./richter shop configure)"
./richter shop configure --api "$API" --token "$TOKEN" || exit 1

step "starting the demo shop (examples/shop/shop.sh start)"
shop_started=1
examples/shop/shop.sh start || exit 1
./richter shop warm || exit 1

# runs the gate once: ./richter run $1 (1 or 2); its exit status in rc, its run id in run_id
gate() {
  step "./richter run #$1: ./richter run --plan $PLAN --out $OUT/run-$1 --junit $OUT/run-$1/junit.xml"
  ./richter run --plan "$PLAN" --api "$API" --token "$TOKEN" --out "$OUT/run-$1" --junit "$OUT/run-$1/junit.xml" \
    2>&1 | tee "$OUT/run-$1.out"
  rc=${PIPESTATUS[0]}
  run_id="$(sed -n 's/^plan .*: run \(run-[^ ]*\) started$/\1/p' "$OUT/run-$1.out" | tail -n 1)"
  echo "./richter run #$1 exited $rc (run $run_id)"
}

gate 1
rc1=$rc run1=$run_id

step "making the shop slower: inventory started again with SHOP_STORE_LATENCY_MS=$SLOW_MS"
examples/shop/shop.sh stop inventory
SHOP_STORE_LATENCY_MS="$SLOW_MS" examples/shop/shop.sh start || exit 1
./richter shop warm || exit 1

gate 2
rc2=$rc run2=$run_id

step "GET /runs/$run2/compare?with=previous"
curl -sf -H "Authorization: Bearer $TOKEN" "$API/runs/$run2/compare?with=previous" >"$OUT/compare.json" \
  || { echo "regression-demo: the compare endpoint did not answer" >&2; exit 1; }
jq -r '"baseline \(.baselineRunId), regressed: \(.regressed)",
  (.steps[] | "  \(.stage) step \(.stepIndex + 1) at \(.targetQps) QPS: p99 \(.p99Ms.baseline) -> \(.p99Ms.run) ms, p50 \(.p50Ms.baseline) -> \(.p50Ms.run) ms, errors \(.errorRatePct.baseline) -> \(.errorRatePct.run) %"),
  "capacity: \(.whole.capacity.baseline) -> \(.whole.capacity.run)",
  "regressions:", (.regressions[] | "  " + .)' "$OUT/compare.json"

echo
echo "== runs $run1, $run2: ./richter run exited $rc1 then $rc2 ($SECONDS s in all); reports under $ROOT/$OUT"
if [[ "$rc1" == 0 && "$rc2" == 2 ]]; then
  echo "regression demo: OK (exit 0, then exit 2 for the slower shop)"
  exit 0
fi
echo "regression demo: FAILED (expected exit 0, then 2)" >&2
exit 1
