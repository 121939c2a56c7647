#!/usr/bin/env bash
# Knee reproducibility: does a rerun find the same capacity? Two parts, each two runs of the demo plan
# (examples/shop/plan.json), each run's capacity finding read from its report.json (capacity.maxSustainableQps and its
# interval [fromQps, toQps), toQps 0 meaning open above); two findings agree when each capacity lies in the other's
# interval.
#
#   demo  `./richter demo` twice: a fresh local stack and freshly started shop JVMs each time.
#   cold  the field trial's case (the same plan again four minutes later, on JVMs the first run warmed): one local
#         stack (`./richter stack`), the shop with its cold variant (SHOP_ORDER_COLD_ORDERS=800, SHOP_ORDER_COLD_MS=900: order holds about
#         18 orders a second when started and 50 once it has taken 800 orders), then `./richter run` of the plan
#         twice back to back against the same JVMs. The plan's warm-up steadies (it runs until WarmUpRule holds), so
#         both runs meet a warm order at the formal stage. Then, for comparison only (not checked): order restarted
#         cold, and the same two runs with the plan's warm-up cut to a fixed 20 s ramp, as the warm-up was before it
#         steadied: the first run then meets a cold order, the second a warm one.
#
# Prints one line per run, then per part `<part>: capacity_a=<qps> capacity_b=<qps> interval_a=[<from>,<to>)
# interval_b=[<from>,<to>) agree=<yes|no>`, and last `knee: demo=<yes|no> cold=<yes|no> cold_fixed_warm_up=<yes|no>`.
# Exit status: 1 when the demo's or the cold part's findings disagree (cold_fixed_warm_up is reported only), 2 when a
# run fails or writes no report. Needs python3 and what `./richter demo` needs; the ports of the local stack and the
# shop free. Takes about 25 minutes (the demo part about 9, the cold part about 15).
# Usage: bench/knee.sh [demo|cold]...   (default: both parts; `bench/knee.sh cold` runs the cold part alone)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" knee-bench
parts=("$@")
[ ${#parts[@]} -gt 0 ] || parts=(demo cold)
API=http://127.0.0.1:3000

finding() { # $1: report.json -> "<capacity> <fromQps> <toQps>"
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["capacity"]; i=c.get("interval",{})
print(c["maxSustainableQps"], i.get("fromQps",0), i.get("toQps",0))' "$1"
}
warm_up_end() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("warmUpEnd") or "fixed")' "$1"; }

# x lies in [from, to), to 0 being open above
within() { python3 -c 'import sys; x,f,t=map(float,sys.argv[1:]); sys.exit(0 if x>=f and (t==0 or x<t) else 1)' "$@"; }

# record <part> <run> <report.json>: prints the run's line and keeps its finding in cap_/from_/to_<part>_<run>
record() {
  local cap from to
  read -r cap from to <<<"$(finding "$3")"
  printf -v "cap_$1_$2" '%s' "$cap"; printf -v "from_$1_$2" '%s' "$from"; printf -v "to_$1_$2" '%s' "$to"
  echo "$1 run $2: capacity $cap QPS [$from, $to) -- warm-up: $(warm_up_end "$3") -- $3"
}

# agreement <part>: prints the part's line; its result in agree_<part>
agreement() {
  local a="cap_$1_a" b="cap_$1_b" fa="from_$1_a" ta="to_$1_a" fb="from_$1_b" tb="to_$1_b" agree=no
  if within "${!a}" "${!fb}" "${!tb}" && within "${!b}" "${!fa}" "${!ta}"; then agree=yes; fi
  printf -v "agree_$1" '%s' "$agree"
  echo "$1: capacity_a=${!a} capacity_b=${!b} interval_a=[${!fa},${!ta}) interval_b=[${!fb},${!tb}) agree=$agree"
}

demo_part() {
  for run in a b; do
    local before dir
    before="$(ls -d build/reports/*/ 2>/dev/null | sort || true)"
    ./richter demo >"$WORK/demo-$run.log" 2>&1 || { tail -20 "$WORK/demo-$run.log" >&2; echo "demo $run failed" >&2; exit 2; }
    dir="$(comm -13 <(echo "$before") <(ls -d build/reports/*/ | sort) | tail -1)"
    [ -n "$dir" ] && [ -f "$dir/report.json" ] || { echo "demo $run wrote no report" >&2; exit 2; }
    record demo "$run" "$dir/report.json"
  done
  agreement demo
}

stack_pid=""
shop_up=0
stop_cold() {
  if ((shop_up)); then examples/shop/shop.sh stop >>"$WORK/shop.log" 2>&1 || true; shop_up=0; fi
  if [ -n "$stack_pid" ]; then kill -TERM "$stack_pid" 2>/dev/null || true; wait "$stack_pid" 2>/dev/null || true; stack_pid=""; fi
}
trap 'stop_cold; rm -rf "$WORK"' EXIT

# run_plan <part> <run> <plan file>
run_plan() {
  local out="$WORK/$1-$2"
  local rc=0
  ./richter run --plan "$3" --api "$API" --token "$TOKEN" --out "$out" >"$out.log" 2>&1 || rc=$?  # 2: the gate failed
  [ -f "$out/report.json" ] || { tail -20 "$out.log" >&2; echo "$1 run $2 (exit $rc) wrote no report" >&2; exit 2; }
  record "$1" "$2" "$out/report.json"
}

cold_part() {
  if curl -sf -o /dev/null --max-time 2 "$API/openapi.json"; then
    echo "knee: an API already answers at $API: stop that stack first" >&2
    exit 2
  fi
  ./richter stack >"$WORK/stack.log" 2>&1 &
  stack_pid=$!
  ./richter wait --pid "$stack_pid" >/dev/null || { tail -30 "$WORK/stack.log" >&2; exit 2; }
  TOKEN="$(./richter token --team shop-team --sub knee-bench)"
  export SHOP_ISOLATION_URL="$API/safety/isolation"
  SHOP_ISOLATION_TOKEN="$(./richter token --team shop-team --sub shop-agent)"
  export SHOP_ISOLATION_TOKEN SHOP_ORDER_COLD_ORDERS=800 SHOP_ORDER_COLD_MS=900
  ./richter shop configure --api "$API" --token "$TOKEN" >"$WORK/configure.log" 2>&1 || { cat "$WORK/configure.log" >&2; exit 2; }
  shop_up=1
  examples/shop/shop.sh start >"$WORK/shop.log" 2>&1 || { tail -30 "$WORK/shop.log" >&2; exit 2; }
  ./richter shop warm >>"$WORK/shop.log" 2>&1 || { tail -30 "$WORK/shop.log" >&2; exit 2; }
  run_plan cold a examples/shop/plan.json
  run_plan cold b examples/shop/plan.json
  agreement cold
  # for comparison: the same with a fixed 20 s warm-up (a ramp of 4 rungs of 5 s), on an order restarted cold
  python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); p["warmUp"]={"qps":20,"durationS":20}; json.dump(p,open(sys.argv[2],"w"))' \
    examples/shop/plan.json "$WORK/plan-fixed-warm-up.json"
  { examples/shop/shop.sh stop order && examples/shop/shop.sh start; } >>"$WORK/shop.log" 2>&1 || { tail -30 "$WORK/shop.log" >&2; exit 2; }
  ./richter shop warm >>"$WORK/shop.log" 2>&1 || { tail -30 "$WORK/shop.log" >&2; exit 2; }
  run_plan cold_fixed_warm_up a "$WORK/plan-fixed-warm-up.json"
  run_plan cold_fixed_warm_up b "$WORK/plan-fixed-warm-up.json"
  agreement cold_fixed_warm_up
  stop_cold
}

agree_demo=- agree_cold=- agree_cold_fixed_warm_up=-
for part in "${parts[@]}"; do
  case "$part" in
    demo) demo_part ;;
    cold) cold_part ;;
    *) echo "usage: bench/knee.sh [demo|cold]..." >&2; exit 2 ;;
  esac
done
echo "knee: demo=$agree_demo cold=$agree_cold cold_fixed_warm_up=$agree_cold_fixed_warm_up"
[ "$agree_demo" != no ] && [ "$agree_cold" != no ]
