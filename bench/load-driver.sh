#!/usr/bin/env bash
# Load-driver benchmark (issue 3): the real LoadDriver (JDK HttpClient, in-memory sink) against a local
# nginx, compared with wrk in the same run.
#   (1) max sustained rate per core, driver vs wrk, each pinned with `taskset -c 1` (nginx on core 0);
#       driver: open-model max (highest target rate, 2 s trials, at which every due request was sent and
#       answered ok, none dropped, and the send rate reached >= 99 % of the target),
#       for both transports (Netty, JDK HttpClient); wrk: closed-loop max (-t1 -c32, 5 s, better of 2 runs);
#       ratio_vs_wrk uses the Netty transport (the load driver's default for http://).
#   (2) rate accuracy at 1, 10, 100, 1000, 10000 QPS (count error and send-timestamp rate error)
#   (3) send-side inter-arrival jitter p99 at 1000 QPS, |gap - 1 ms|
#   (4) peak heap used at 10000 QPS
# Last line: ratio_vs_wrk=<x> max_rate_error_pct=<y> jitter_p99_ms=<z>
# Usage: bench/load-driver.sh            (from anywhere; ~3-4 minutes)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[[ -x "$JAVA_HOME/bin/java" ]] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
JAVA="$JAVA_HOME/bin/java"
PORT="${BENCH_PORT:-18480}"
URL="http://127.0.0.1:${PORT}"
SUDO=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && SUDO="sudo"

# --- tools -------------------------------------------------------------------------------------------
if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null; then
  $SUDO apt-get install -y nginx wrk >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y nginx wrk >/dev/null; }
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
CORES=$(nproc)
DRIVER_CPU=1; NGINX_CPU=0
if (( CORES < 2 )); then DRIVER_CPU=0; echo "warning: 1 core, nginx and the client share it" >&2; fi

# --- nginx on loopback, own config ------------------------------------------------------------------
WORK="$(mktemp -d /tmp/richter-ld-bench.XXXXXX)"
NGINX_PID=""
cleanup() {
  if [[ -n "$NGINX_PID" ]] && kill -0 "$NGINX_PID" 2>/dev/null; then
    kill "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
}
trap cleanup EXIT INT TERM
mkdir -p "$WORK/html" "$WORK/logs" "$WORK/tmp"
printf 'ok\n' > "$WORK/html/index.html"
cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
daemon off;
master_process off;
pid $WORK/nginx.pid;
error_log $WORK/logs/error.log warn;
events { worker_connections 20000; }
http {
  access_log off;
  client_body_temp_path $WORK/tmp/body;
  proxy_temp_path $WORK/tmp/proxy;
  fastcgi_temp_path $WORK/tmp/fastcgi;
  uwsgi_temp_path $WORK/tmp/uwsgi;
  scgi_temp_path $WORK/tmp/scgi;
  keepalive_requests 10000000;
  keepalive_timeout 60s;
  server {
    listen 127.0.0.1:$PORT;
    location / { root $WORK/html; index index.html; }
  }
}
CONF
ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
taskset -c "$NGINX_CPU" "$NGINX" -p "$WORK" -c "$WORK/nginx.conf" &
NGINX_PID=$!
for _ in $(seq 50); do curl -fs "$URL/" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "$URL/" >/dev/null || { echo "nginx did not start" >&2; cat "$WORK/logs/error.log" >&2; exit 1; }

# --- build --------------------------------------------------------------------------------------------
( cd "$ROOT" && mvn -q -pl functions/load-driver package -DskipTests >/dev/null \
  && mvn -q -pl functions/load-driver dependency:build-classpath -Dmdep.outputFile="$WORK/cp.txt" >/dev/null ) 2>&1 \
  | grep -v '^WARNING' >&2 || true
CP="$ROOT/functions/load-driver/target/classes:$(cat "$WORK/cp.txt")"
JVM_OPTS=(-Xms256m -Xmx512m -XX:+UseSerialGC -XX:ActiveProcessorCount=1
          -Dlog4j2.configurationFile="$ROOT/bench/load-driver/log4j2.xml")
# bench <mode> <transport>
bench() {
  taskset -c "$DRIVER_CPU" "$JAVA" "${JVM_OPTS[@]}" -Dbench.transport="$2" -cp "$CP" \
    dev.richter.loaddriver.bench.LoadDriverBench "$URL" "$1" 2> >(grep -v -e '^WARNING' -e '^SLF4J' >&2)
}

# --- (1) max rate per core ---------------------------------------------------------------------------
# wrk twice (before and after the driver runs; the better run counts) because this host may be shared;
# CPU per request (user+sys / requests) is printed too: it is robust to neighbours, max rates are not.
TIMEFORMAT='%U %S'
wrk_run() {
  local out cpu
  { cpu=$( { time taskset -c "$DRIVER_CPU" wrk -t1 -c32 -d5s "$URL/" > "$WORK/wrk.out"; } 2>&1 ); }
  out="$(cat "$WORK/wrk.out")"
  local rps reqs
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  reqs="$(awk '/requests in/ {print $1}' <<<"$out")"
  awk -v r="$rps" -v n="$reqs" -v c="$cpu" 'BEGIN{split(c,a," "); printf "%s %.1f\n", r, (a[1]+a[2])*1e6/n}'
}
read -r WRK1_RPS WRK1_CPU < <(wrk_run)
MAX_NETTY="$(bench maxrate netty)"
MAX_JDK="$(bench maxrate jdk)"
read -r WRK2_RPS WRK2_CPU < <(wrk_run)
printf '%s\n%s\n' "$MAX_NETTY" "$MAX_JDK" | grep -E '^maxrate_(trial|retry)' | cut -c1-200 >&2 || true
read -r WRK_RPS WRK_CPU < <(awk -v a="$WRK1_RPS" -v b="$WRK2_RPS" -v ca="$WRK1_CPU" -v cb="$WRK2_CPU" \
  'BEGIN{ if (a+0 >= b+0) print a, ca; else print b, cb }')
mr() { sed -n "s/^maxrate .*max_rate_qps=\([0-9.]*\) cpu_us_per_req=\([0-9.]*\).*/\1 \2/p"; }
read -r NETTY_MAX NETTY_CPU < <(mr <<<"$MAX_NETTY")
read -r JDK_MAX JDK_CPU < <(mr <<<"$MAX_JDK")
DRIVER_MAX="$NETTY_MAX"
# --- (2)-(4) accuracy, jitter, heap ------------------------------------------------------------------
ACC_OUT="$(bench accuracy netty)"
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p"; }

echo
echo "== (1) max rate per core: load driver vs wrk (client cpu $DRIVER_CPU, nginx cpu $NGINX_CPU, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)) =="
printf '%-44s %12s %16s\n' "client" "max req/s" "cpu us/request"
printf '%-44s %12s %16s\n' "wrk -t1 -c32 (closed loop, better of 2 runs)" "$WRK_RPS" "$WRK_CPU"
printf '%-44s %12s %16s\n' "load driver, Netty transport (open model)" "$NETTY_MAX" "$NETTY_CPU"
printf '%-44s %12s %16s\n' "load driver, JDK HttpClient (open model)" "$JDK_MAX" "$JDK_CPU"
printf 'wrk runs: %s and %s req/s\n' "$WRK1_RPS" "$WRK2_RPS"
echo
echo "== (2) rate accuracy, Netty transport (target = ceil(qps x duration); rate from send timestamps) =="
printf '%8s %6s %7s %7s %7s %8s %6s %8s %8s %12s %10s %10s %9s\n' qps dur_s target sent ok dropped late timeouts conn_err send_rate count_err% rate_err% p99_ms
MAX_ERR=0
while read -r line; do
  q=$(field qps <<<"$line"); d=$(field duration_s <<<"$line"); t=$(field target <<<"$line")
  s=$(field sent <<<"$line"); o=$(field ok <<<"$line"); dr=$(field dropped <<<"$line"); la=$(field late <<<"$line")
  sr=$(field send_rate_qps <<<"$line"); ce=$(field count_err_pct <<<"$line"); re=$(field rate_err_pct <<<"$line")
  p99=$(field p99_from_due_ms <<<"$line"); to=$(field timeouts <<<"$line"); cx=$(field connect_errors <<<"$line")
  printf '%8s %6s %7s %7s %7s %8s %6s %8s %8s %12s %10s %10s %9s\n' "$q" "$d" "$t" "$s" "$o" "$dr" "$la" "$to" "$cx" "$sr" "$ce" "$re" "$p99"
  MAX_ERR=$(awk -v a="$MAX_ERR" -v b="$ce" -v c="$re" 'BEGIN{m=a; if(b>m)m=b; if(c>m)m=c; print m}')
done < <(grep '^accuracy' <<<"$ACC_OUT")
JIT_LINE="$(grep '^jitter ' <<<"$ACC_OUT")"
FLOOR_LINE="$(grep '^jitter_floor' <<<"$ACC_OUT")"
HEAP_LINE="$(grep '^heap' <<<"$ACC_OUT")"
JITTER_P99_MS=$(awk -v us="$(field p99_us <<<" $JIT_LINE")" 'BEGIN{printf "%.3f", us/1000}')
echo
echo "== (3) jitter at 1000 QPS (send side, |gap - 1 ms|) =="
echo "$JIT_LINE"
echo "$FLOOR_LINE   (same scheduler, no-op dispatch: what this host's timers and load allow)"
echo "== (4) heap at 10000 QPS (-Xmx512m, SerialGC, peak of 50 ms samples) =="
echo "$HEAP_LINE"
RATIO=$(awk -v a="$DRIVER_MAX" -v b="$WRK_RPS" 'BEGIN{ if (b>0) printf "%.3f", a/b; else print "nan"}')
CPU_RATIO=$(awk -v a="$NETTY_CPU" -v b="$WRK_CPU" 'BEGIN{ if (a>0) printf "%.3f", b/a; else print "nan"}')
echo "cpu-cost ratio (wrk us/req / driver us/req, Netty): $CPU_RATIO"
echo
echo "ratio_vs_wrk=$RATIO max_rate_error_pct=$(awk -v m="$MAX_ERR" 'BEGIN{printf "%.3f", m}') jitter_p99_ms=$JITTER_P99_MS"
