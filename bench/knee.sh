#!/usr/bin/env bash
# Knee reproducibility: runs the demo (`./richter demo`: a fresh local stack and freshly started shop JVMs each time)
# twice and prints each run's capacity finding (report.json capacity: maxSustainableQps and its interval
# [fromQps, toQps), toQps 0 meaning open above), then whether they agree: each run's capacity lies in the other's
# interval. Needs python3 (to read report.json). Takes two demo runs (about 3 minutes each).
# Last line: capacity_a=<qps> capacity_b=<qps> interval_a=[<from>,<to>) interval_b=[<from>,<to>) agree=<yes|no>
# Exit status: 1 when the two findings disagree, 2 when a demo fails or writes no report.
# Usage: bench/knee.sh        (from anywhere)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" knee-bench

finding() { # $1: report.json -> "<capacity> <fromQps> <toQps> <text>"
  python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["capacity"]; i=c.get("interval",{})
print(c["maxSustainableQps"], i.get("fromQps",0), i.get("toQps",0), i.get("text",""))' "$1"
}

for run in a b; do
  before="$(ls -d build/reports/*/ 2>/dev/null | sort || true)"
  ./richter demo >"$WORK/demo-$run.log" 2>&1 || { tail -20 "$WORK/demo-$run.log" >&2; echo "demo $run failed" >&2; exit 2; }
  dir="$(comm -13 <(echo "$before") <(ls -d build/reports/*/ | sort) | tail -1)"
  [ -n "$dir" ] && [ -f "$dir/report.json" ] || { echo "demo $run wrote no report" >&2; exit 2; }
  read -r cap from to text <<<"$(finding "$dir/report.json")"
  printf -v "cap_$run" '%s' "$cap"; printf -v "from_$run" '%s' "$from"; printf -v "to_$run" '%s' "$to"
  echo "run $run: capacity $cap QPS ($text) -- $dir"
done

# x lies in [from, to), to 0 being open above
within() { python3 -c 'import sys; x,f,t=map(float,sys.argv[1:]); sys.exit(0 if x>=f and (t==0 or x<t) else 1)' "$@"; }
agree=no
if within "$cap_a" "$from_b" "$to_b" && within "$cap_b" "$from_a" "$to_a"; then agree=yes; fi
echo "capacity_a=$cap_a capacity_b=$cap_b interval_a=[$from_a,$to_a) interval_b=[$from_b,$to_b) agree=$agree"
[ "$agree" = yes ]
