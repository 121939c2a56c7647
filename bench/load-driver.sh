#!/usr/bin/env bash
# Load-driver benchmark: the real LoadDriver (in-memory sink) against a local nginx,
# compared with a peer load generator measured in the same run, on the same core.
#
# PROTOCOL=h1 (default) — HTTP/1.1 on http://, peer wrk:
#   (1) max sustained rate per core, driver vs wrk, each pinned with `taskset -c 1` (nginx on core 0);
#       driver: open-model max (highest target rate, 2 s trials, at which every due request was sent and
#       answered ok, none dropped, and the send rate reached >= 99 % of the target),
#       for both transports (Netty, JDK HttpClient); wrk: closed-loop max (-t1 -c32, 5 s, better of 2 runs);
#       ratio_vs_wrk uses the Netty transport (the load driver's default for http://).
#   (2) rate accuracy at 1, 10, 100, 1000, 10000 QPS (count error and send-timestamp rate error)
#   (3) send-side inter-arrival jitter p99 at 1000 QPS, |gap - 1 ms|
#   (4) peak heap used at 10000 QPS
#   Last line: ratio_vs_wrk=<x> max_rate_error_pct=<y> jitter_p99_ms=<z>
# PROTOCOL=h2c — HTTP/2 with prior knowledge on http:// (nginx `listen ... http2`), peer h2load (-t1 -c1 -m32:
#   one connection, 32 streams in flight, as wrk keeps 32 requests in flight; better of 2 runs):
#   max rate of the driver's Netty h2c and, on the same nginx, its HTTP/1.1 and wrk's.
#   Last line: ratio_vs_h2load=<h2c / h2load> h2c_vs_h1=<driver h2c / driver HTTP/1.1> h2load_vs_wrk=<peers>
# PROTOCOL=h2 — https:// (self-signed certificate made here, trusted by the driver's JVM), peer h2load over TLS
#   (ALPN h2): max rate of the driver's Netty offering h2 (ALPN picks h2), Netty offering http/1.1 only, and the
#   JDK HttpClient (HTTP/1.1 over TLS, what SchemeRoutingTransport can route https to).
#   Last line: ratio_vs_h2load=<h2 / h2load> h2_vs_tls_h1=<h2 / Netty TLS HTTP/1.1> h2_vs_jdk=<h2 / JDK>
# Every max rate is measured the same way: see LoadDriverBench (maxrate). This host is shared: compare runs made
# back to back, and look at cpu us/request too (robust to neighbours; max rates are not).
#
# Usage: bench/load-driver.sh            (from anywhere; ~3-4 minutes a run)
#        RUNS=3 bench/load-driver.sh     (the whole measurement three times; the last 3 lines are the runs' last lines)
#        PROTOCOL=h2c bench/load-driver.sh, PROTOCOL=h2 bench/load-driver.sh
#        BENCH_JAVA_OPTS="-Dbench.scheduler=thread" bench/load-driver.sh   (A/B: scheduler on the driver's thread)
#        BENCH_JAVA_OPTS="-Dbench.gaps=true" bench/load-driver.sh   (lists each send gap off by >= 0.3 ms, by offset)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
[[ -x "$JAVA_HOME/bin/java" ]] || JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
JAVA="$JAVA_HOME/bin/java"
PROTOCOL="${PROTOCOL:-h1}"
RUNS="${RUNS:-1}"
case "$PROTOCOL" in h1|h2c|h2) ;; *) echo "PROTOCOL must be h1, h2c or h2" >&2; exit 2;; esac
PORT="${BENCH_PORT:-18480}"
H2C_PORT=$((PORT + 1))
TLS_PORT=$((PORT + 2))
URL="http://127.0.0.1:${PORT}"
H2C_URL="http://127.0.0.1:${H2C_PORT}"
TLS_URL="https://127.0.0.1:${TLS_PORT}"
SUDO=""; [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && SUDO="sudo"

# --- tools -------------------------------------------------------------------------------------------
NEED=(nginx wrk); [[ "$PROTOCOL" != h1 ]] && NEED+=(nghttp2-client openssl)
missing=()
for p in "${NEED[@]}"; do
  bin="$p"; [[ "$p" == nghttp2-client ]] && bin=h2load
  command -v "$bin" >/dev/null || missing+=("$p")
done
if (( ${#missing[@]} )); then
  $SUDO apt-get install -y "${missing[@]}" >/dev/null 2>&1 || { $SUDO apt-get update >/dev/null && $SUDO apt-get install -y "${missing[@]}" >/dev/null; }
fi
NGINX="$(command -v nginx || echo /usr/sbin/nginx)"
CORES=$(nproc)
DRIVER_CPU=1; NGINX_CPU=0
if (( CORES < 2 )); then DRIVER_CPU=0; echo "warning: 1 core, nginx and the client share it" >&2; fi

# --- nginx on loopback, own config: HTTP/1.1, h2c and TLS (h2 + http/1.1) listeners ------------------
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
TLS_CONF=""
if [[ "$PROTOCOL" == h2 ]]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
    -addext "subjectAltName=IP:127.0.0.1" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
  "$JAVA_HOME/bin/keytool" -importcert -noprompt -alias bench -file "$WORK/cert.pem" -keystore "$WORK/trust.p12" \
    -storetype PKCS12 -storepass changeit >/dev/null
  TLS_CONF="listen 127.0.0.1:$TLS_PORT ssl http2; ssl_certificate $WORK/cert.pem; ssl_certificate_key $WORK/key.pem;"
fi
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
    listen 127.0.0.1:$H2C_PORT http2;
    $TLS_CONF
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
# a snapshot of the classes and jars: a concurrent `mvn install` on this shared host cannot swap one under a running JVM
mkdir -p "$WORK/lib"
cp -r "$ROOT/functions/load-driver/target/classes" "$WORK/classes"
CP="$WORK/classes"
IFS=: read -r -a JARS < "$WORK/cp.txt" || true  # no final newline
for i in "${!JARS[@]}"; do
  jar="$WORK/lib/$i-$(basename "${JARS[$i]}")"
  cp "${JARS[$i]}" "$jar" && CP="$CP:$jar"
done
# the bench itself is not part of the function's jar: compiled here against the snapshot
"$JAVA_HOME/bin/javac" --release 21 -nowarn -cp "$CP" -d "$WORK/bench-classes" "$ROOT/bench/load-driver/LoadDriverBench.java"
CP="$WORK/bench-classes:$CP"
# -XX:+AlwaysPreTouch as the load-driver function has it (template.yaml): no page faults in a young collection
JVM_OPTS=(-Xms256m -Xmx512m -XX:+UseSerialGC -XX:ActiveProcessorCount=1 -XX:+AlwaysPreTouch
          -Dlog4j2.configurationFile="$ROOT/bench/load-driver/log4j2.xml")
[[ "$PROTOCOL" == h2 ]] && JVM_OPTS+=(-Djavax.net.ssl.trustStore="$WORK/trust.p12" -Djavax.net.ssl.trustStorePassword=changeit)
# e.g. BENCH_JAVA_OPTS="-Dbench.scheduler=thread" (scheduler on the driver's thread, not the transport's send loop) or
# "-Dbench.spinNanos=50000" (send loop polls 50 us before each send): A/B comparisons with one build
read -r -a EXTRA <<<"${BENCH_JAVA_OPTS:-}"
JVM_OPTS+=("${EXTRA[@]}")
# bench <url> <mode> <transport: jdk|netty|h2c|h2|tls-h1>
bench() {
  taskset -c "$DRIVER_CPU" "$JAVA" "${JVM_OPTS[@]}" -Dbench.transport="$3" -cp "$CP" \
    dev.richter.loaddriver.bench.LoadDriverBench "$1" "$2" 2> >(grep -v -e '^WARNING' -e '^SLF4J' >&2)
}

# --- peers: "<req/s> <cpu us/request>" ----------------------------------------------------------------
# CPU per request (user+sys / requests) is printed too: it is robust to neighbours, max rates are not.
TIMEFORMAT='%U %S'
wrk_run() {
  local out cpu rps reqs
  { cpu=$( { time taskset -c "$DRIVER_CPU" wrk -t1 -c32 -d5s "$URL/" > "$WORK/wrk.out"; } 2>&1 ); }
  out="$(cat "$WORK/wrk.out")"
  rps="$(awk '/Requests\/sec/ {print $2}' <<<"$out")"
  reqs="$(awk '/requests in/ {print $1}' <<<"$out")"
  awk -v r="$rps" -v n="$reqs" -v c="$cpu" 'BEGIN{split(c,a," "); printf "%s %.1f\n", r, (a[1]+a[2])*1e6/n}'
}
# h2load_run <url>: 5 s measured after 1 s of warm-up (connection, TLS handshake)
h2load_run() {
  local cpu rps reqs
  { cpu=$( { time taskset -c "$DRIVER_CPU" h2load -t1 -c1 -m32 -D 5 --warm-up-time=1 "$1/" > "$WORK/h2load.out"; } 2>&1 ); }
  rps="$(sed -n 's/^finished in [^,]*, \([0-9.]*\) req\/s.*/\1/p' "$WORK/h2load.out")"
  reqs="$(awk '/^requests:/ {print $2}' "$WORK/h2load.out")"
  grep -q 'Application protocol: h2' "$WORK/h2load.out" || { echo "h2load did not speak HTTP/2:" >&2; cat "$WORK/h2load.out" >&2; }
  awk -v r="${rps:-0}" -v n="${reqs:-0}" -v c="$cpu" 'BEGIN{split(c,a," "); printf "%s %.1f\n", r, (n > 0 ? (a[1]+a[2])*1e6/n : 0)}'
}
better() { awk -v a="$1" -v b="$3" -v ca="$2" -v cb="$4" 'BEGIN{ if (a+0 >= b+0) print a, ca; else print b, cb }'; }
mr() { sed -n "s/^maxrate .*max_rate_qps=\([0-9.]*\) cpu_us_per_req=\([0-9.]*\).*/\1 \2/p"; }
div() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b>0) printf "%.3f", a/b; else print "nan"}'; }
trials() { grep -E '^maxrate_(trial|retry)' | cut -c1-200 >&2 || true; }
field() { sed -n "s/.*[[:space:]]$1=\([^[:space:]]*\).*/\1/p"; }
header() { echo; echo "== (1) max rate per core: $1 (client cpu $DRIVER_CPU, nginx cpu $NGINX_CPU, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg)) =="; printf '%-52s %12s %16s\n' "client" "max req/s" "cpu us/request"; }
row() { printf '%-52s %12s %16s\n' "$1" "$2" "$3"; }

run_h1() {
  local WRK1_RPS WRK1_CPU WRK2_RPS WRK2_CPU WRK_RPS WRK_CPU MAX_NETTY MAX_JDK NETTY_MAX NETTY_CPU JDK_MAX JDK_CPU
  # wrk twice (before and after the driver runs; the better run counts) because this host may be shared
  read -r WRK1_RPS WRK1_CPU < <(wrk_run)
  MAX_NETTY="$(bench "$URL" maxrate netty)"
  MAX_JDK="$(bench "$URL" maxrate jdk)"
  read -r WRK2_RPS WRK2_CPU < <(wrk_run)
  printf '%s\n%s\n' "$MAX_NETTY" "$MAX_JDK" | trials
  read -r WRK_RPS WRK_CPU < <(better "$WRK1_RPS" "$WRK1_CPU" "$WRK2_RPS" "$WRK2_CPU")
  read -r NETTY_MAX NETTY_CPU < <(mr <<<"$MAX_NETTY")
  read -r JDK_MAX JDK_CPU < <(mr <<<"$MAX_JDK")
  # --- (2)-(4) accuracy, jitter, heap ----------------------------------------------------------------
  local ACC_OUT MAX_ERR=0 line q d t s o dr la sr ce re p99 to cx JIT_LINE FLOOR_LINE HEAP_LINE JITTER_P99_MS
  ACC_OUT="$(bench "$URL" accuracy netty)"

  header "load driver vs wrk, HTTP/1.1"
  row "wrk -t1 -c32 (closed loop, better of 2 runs)" "$WRK_RPS" "$WRK_CPU"
  row "load driver, Netty transport (open model)" "$NETTY_MAX" "$NETTY_CPU"
  row "load driver, JDK HttpClient (open model)" "$JDK_MAX" "$JDK_CPU"
  printf 'wrk runs: %s and %s req/s\n' "$WRK1_RPS" "$WRK2_RPS"
  echo
  echo "== (2) rate accuracy, Netty transport (target = ceil(qps x duration); rate from send timestamps) =="
  printf '%8s %6s %7s %7s %7s %8s %6s %8s %8s %12s %10s %10s %9s\n' qps dur_s target sent ok dropped late timeouts conn_err send_rate count_err% rate_err% p99_ms
  while read -r line; do
    q=$(field qps <<<"$line"); d=$(field duration_s <<<"$line"); t=$(field target <<<"$line")
    s=$(field sent <<<"$line"); o=$(field ok <<<"$line"); dr=$(field dropped <<<"$line"); la=$(field late <<<"$line")
    sr=$(field send_rate_qps <<<"$line"); ce=$(field count_err_pct <<<"$line"); re=$(field rate_err_pct <<<"$line")
    p99=$(field p99_from_due_ms <<<"$line"); to=$(field timeouts <<<"$line"); cx=$(field connect_errors <<<"$line")
    printf '%8s %6s %7s %7s %7s %8s %6s %8s %8s %12s %10s %10s %9s\n' "$q" "$d" "$t" "$s" "$o" "$dr" "$la" "$to" "$cx" "$sr" "$ce" "$re" "$p99"
    MAX_ERR=$(awk -v a="$MAX_ERR" -v b="$ce" -v c="$re" 'BEGIN{m=a; if(b>m)m=b; if(c>m)m=c; print m}')
  done < <(grep '^accuracy' <<<"$ACC_OUT")
  JIT_LINE="$(grep '^jitter ' <<<"$ACC_OUT")"
  FLOOR_LINE="$(grep '^jitter_floor ' <<<"$ACC_OUT")"
  HEAP_LINE="$(grep '^heap' <<<"$ACC_OUT")"
  JITTER_P99_MS=$(awk -v us="$(field p99_us <<<" $JIT_LINE")" 'BEGIN{printf "%.3f", us/1000}')
  echo
  echo "== (3) jitter at 1000 QPS (send side, |gap - 1 ms|) =="
  echo "$JIT_LINE"
  echo "$FLOOR_LINE   (same scheduler and thread, no-op dispatch: what this host's timers and load allow)"
  grep '_late_gaps' <<<"$ACC_OUT" || true   # only with BENCH_JAVA_OPTS=-Dbench.gaps=true
  echo "== (4) heap at 10000 QPS (-Xmx512m, SerialGC, peak of 50 ms samples) =="
  echo "$HEAP_LINE"
  echo "cpu-cost ratio (wrk us/req / driver us/req, Netty): $(div "$WRK_CPU" "$NETTY_CPU")"
  echo
  LAST="ratio_vs_wrk=$(div "$NETTY_MAX" "$WRK_RPS") max_rate_error_pct=$(awk -v m="$MAX_ERR" 'BEGIN{printf "%.3f", m}') jitter_p99_ms=$JITTER_P99_MS"
}

run_h2c() {
  local P1 PC1 P2 PC2 P_RPS P_CPU W_RPS W_CPU MAX_H2C MAX_H1 H2C_MAX H2C_CPU H1_MAX H1_CPU
  read -r P1 PC1 < <(h2load_run "$H2C_URL")
  MAX_H2C="$(bench "$H2C_URL" maxrate h2c)"
  MAX_H1="$(bench "$URL" maxrate netty)"
  read -r P2 PC2 < <(h2load_run "$H2C_URL")
  read -r W_RPS W_CPU < <(wrk_run)
  printf '%s\n%s\n' "$MAX_H2C" "$MAX_H1" | trials
  read -r P_RPS P_CPU < <(better "$P1" "$PC1" "$P2" "$PC2")
  read -r H2C_MAX H2C_CPU < <(mr <<<"$MAX_H2C")
  read -r H1_MAX H1_CPU < <(mr <<<"$MAX_H1")
  header "h2c (HTTP/2, prior knowledge) vs h2load; HTTP/1.1 on the same nginx"
  row "h2load -t1 -c1 -m32 h2c (closed loop, better of 2)" "$P_RPS" "$P_CPU"
  row "wrk -t1 -c32 HTTP/1.1 (closed loop)" "$W_RPS" "$W_CPU"
  row "load driver, Netty h2c (open model)" "$H2C_MAX" "$H2C_CPU"
  row "load driver, Netty HTTP/1.1 (open model)" "$H1_MAX" "$H1_CPU"
  printf 'h2load runs: %s and %s req/s\n' "$P1" "$P2"
  echo
  LAST="ratio_vs_h2load=$(div "$H2C_MAX" "$P_RPS") h2c_vs_h1=$(div "$H2C_MAX" "$H1_MAX") h2load_vs_wrk=$(div "$P_RPS" "$W_RPS")"
}

run_h2() {
  local P1 PC1 P2 PC2 P_RPS P_CPU MAX_H2 MAX_TLS1 MAX_JDK H2_MAX H2_CPU T1_MAX T1_CPU JDK_MAX JDK_CPU
  read -r P1 PC1 < <(h2load_run "$TLS_URL")
  MAX_H2="$(bench "$TLS_URL" maxrate h2)"
  MAX_TLS1="$(bench "$TLS_URL" maxrate tls-h1)"
  MAX_JDK="$(bench "$TLS_URL" maxrate jdk)"
  read -r P2 PC2 < <(h2load_run "$TLS_URL")
  printf '%s\n%s\n%s\n' "$MAX_H2" "$MAX_TLS1" "$MAX_JDK" | trials
  read -r P_RPS P_CPU < <(better "$P1" "$PC1" "$P2" "$PC2")
  read -r H2_MAX H2_CPU < <(mr <<<"$MAX_H2")
  read -r T1_MAX T1_CPU < <(mr <<<"$MAX_TLS1")
  read -r JDK_MAX JDK_CPU < <(mr <<<"$MAX_JDK")
  header "https: h2 (ALPN) vs h2load over TLS; HTTP/1.1 over TLS"
  row "h2load -t1 -c1 -m32 h2 over TLS (better of 2)" "$P_RPS" "$P_CPU"
  row "load driver, Netty h2 (ALPN, open model)" "$H2_MAX" "$H2_CPU"
  row "load driver, Netty HTTP/1.1 over TLS" "$T1_MAX" "$T1_CPU"
  row "load driver, JDK HttpClient HTTP/1.1 over TLS" "$JDK_MAX" "$JDK_CPU"
  printf 'h2load runs: %s and %s req/s\n' "$P1" "$P2"
  echo
  LAST="ratio_vs_h2load=$(div "$H2_MAX" "$P_RPS") h2_vs_tls_h1=$(div "$H2_MAX" "$T1_MAX") h2_vs_jdk=$(div "$H2_MAX" "$JDK_MAX")"
}

LASTS=()
for run in $(seq "$RUNS"); do
  (( RUNS > 1 )) && echo && echo "######## run $run of $RUNS (PROTOCOL=$PROTOCOL) ########"
  LAST=""
  "run_$PROTOCOL"
  echo "$LAST"
  LASTS+=("$LAST")
done
if (( RUNS > 1 )); then
  echo
  echo "== last lines of the $RUNS runs =="
  printf '%s\n' "${LASTS[@]}"
fi
