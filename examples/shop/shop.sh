#!/usr/bin/env bash
# Runs the Richter demo shop: order (18081) -> inventory (18082) -> payment (18083, external exit),
# each JVM with the OpenTelemetry Java agent + the contrib baggage span processor.
#
#   shop.sh start            build if needed, start the three services, wait for /actuator/health
#   shop.sh stop             stop them (TERM, then KILL after 10 s); no process is left behind
#   shop.sh status           pid and health of each service; exit 1 if any is down
#   shop.sh spans <outfile>  merge all exported spans into one OTLP JSON {"resourceSpans":[...]}
#
# Env: JAVA_HOME (default /usr/lib/jvm/temurin-25-jdk-amd64), SHOP_ORDER_PORT, SHOP_INVENTORY_PORT,
# SHOP_PAYMENT_PORT, SHOP_JAVA_OPTS (JVM options, default -Xmx256m), SHOP_RUN_DIR (default target/run: pid and log
# files <service>.{pid,log}), SHOP_NO_BUILD=1 (never run mvn), SHOP_START_TIMEOUT_S (health wait per
# service, default 120), and every SHOP_* variable the services
# read (see README.md), e.g. SHOP_BREAK_ASYNC_MARKER=1.
set -euo pipefail

SHOP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
TARGET="$SHOP_DIR/target"
RUN="${SHOP_RUN_DIR:-$TARGET/run}"
AGENT="$TARGET/otel/opentelemetry-javaagent.jar"
BAGGAGE_EXT="$TARGET/otel/opentelemetry-baggage-processor.jar"
CLASSPATH_SHOP="$TARGET/shop.jar:$TARGET/lib/*"
SERVICES=(payment inventory order)   # start order: downstream first

export SHOP_ORDER_PORT="${SHOP_ORDER_PORT:-18081}"
export SHOP_INVENTORY_PORT="${SHOP_INVENTORY_PORT:-18082}"
export SHOP_PAYMENT_PORT="${SHOP_PAYMENT_PORT:-18083}"
export SHOP_INVENTORY_URL="${SHOP_INVENTORY_URL:-http://127.0.0.1:$SHOP_INVENTORY_PORT}"
export SHOP_PAYMENT_URL="${SHOP_PAYMENT_URL:-http://127.0.0.1:$SHOP_PAYMENT_PORT}"

port_of() {
  case "$1" in
    order) echo "$SHOP_ORDER_PORT" ;;
    inventory) echo "$SHOP_INVENTORY_PORT" ;;
    payment) echo "$SHOP_PAYMENT_PORT" ;;
  esac
}

main_class_of() {
  case "$1" in
    order) echo dev.richter.shop.OrderService ;;
    inventory) echo dev.richter.shop.InventoryService ;;
    payment) echo dev.richter.shop.PaymentService ;;
  esac
}

# pid of a running service, or nothing; a pid file whose process is gone or is no longer this
# service's JVM (pid reused) counts as not running, so stop never signals an unrelated process
running_pid() {
  local pidfile="$RUN/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$(main_class_of "$1")"; then echo "$pid"; fi
}

build_if_needed() {
  local jar="$TARGET/shop.jar"
  [[ "${SHOP_NO_BUILD:-0}" == 1 ]] && return 0
  if [[ ! -f "$jar" || ! -f "$AGENT" || ! -f "$BAGGAGE_EXT" \
        || -n "$(find "$SHOP_DIR/src/main" "$SHOP_DIR/pom.xml" -newer "$jar" -print -quit)" ]]; then
    echo "building shop ..."
    mvn -q -f "$SHOP_DIR/pom.xml" package -DskipTests
  fi
}

health_url() { echo "http://127.0.0.1:$(port_of "$1")/actuator/health"; }

start_one() {
  local svc="$1" pid
  pid="$(running_pid "$svc")"
  if [[ -n "$pid" ]]; then echo "$svc already running (pid $pid)"; return 0; fi
  # shellcheck disable=SC2086  # SHOP_JAVA_OPTS is a list of options
  nohup "$JAVA" ${SHOP_JAVA_OPTS:--Xmx256m} \
    -javaagent:"$AGENT" \
    -Dotel.javaagent.extensions="$BAGGAGE_EXT" \
    -Dotel.java.experimental.span-attributes.copy-from-baggage.include='*' \
    -Dotel.propagators=tracecontext,baggage \
    -Dotel.service.name="$svc" \
    -Dotel.resource.attributes=service.namespace=richter-shop \
    -Dotel.traces.exporter=logging-otlp \
    -Dotel.metrics.exporter=none \
    -Dotel.logs.exporter=none \
    -Dotel.bsp.schedule.delay=500 \
    -cp "$CLASSPATH_SHOP" "$(main_class_of "$svc")" >"$RUN/$svc.log" 2>&1 </dev/null &
  echo $! >"$RUN/$svc.pid"
}

wait_healthy() {
  local svc="$1" limit="${SHOP_START_TIMEOUT_S:-120}" deadline
  deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    # liveness by pid while starting: until nohup has exec'd the JVM, /proc/<pid>/cmdline is the
    # forking shell's, so running_pid (which checks the main class) would report a false exit
    if ! kill -0 "$(cat "$RUN/$svc.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      echo "$svc exited during start; last log lines:" >&2
      tail -n 20 "$RUN/$svc.log" >&2
      return 1
    fi
    if curl -fs -o /dev/null --max-time 2 "$(health_url "$svc")"; then
      echo "$svc up on :$(port_of "$svc") (pid $(running_pid "$svc"))"
      return 0
    fi
    sleep 0.3
  done
  echo "$svc not healthy after $limit s; see $RUN/$svc.log" >&2
  return 1
}

any_running() {
  local svc
  for svc in "${SERVICES[@]}"; do [[ -n "$(running_pid "$svc")" ]] && return 0; done
  return 1
}

cmd_start() {
  # never rebuild the jar under running JVMs
  any_running || build_if_needed
  mkdir -p "$RUN"
  for svc in "${SERVICES[@]}"; do start_one "$svc"; done
  for svc in "${SERVICES[@]}"; do
    if ! wait_healthy "$svc"; then cmd_stop; exit 1; fi
  done
}

cmd_stop() {
  local svc pid i
  for svc in order inventory payment; do
    pid="$(running_pid "$svc")"
    if [[ -n "$pid" ]]; then
      kill -TERM "$pid" 2>/dev/null || true
      for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
      echo "$svc stopped (pid $pid)"
    fi
    rm -f "$RUN/$svc.pid"
  done
}

cmd_status() {
  local svc pid rc=0 health
  for svc in order inventory payment; do
    pid="$(running_pid "$svc")"
    if [[ -z "$pid" ]]; then echo "$svc: stopped"; rc=1; continue; fi
    health="$(curl -sS --max-time 2 "$(health_url "$svc")" 2>/dev/null || echo 'no answer')"
    echo "$svc: pid $pid, :$(port_of "$svc"), health $health"
    [[ "$health" == *'"status":"UP"'* ]] || rc=1
  done
  return $rc
}

cmd_spans() {
  local out="${1:?usage: shop.sh spans <outfile>}" logs=()
  [[ -f "$TARGET/shop.jar" ]] || build_if_needed
  for svc in order inventory payment; do
    [[ -f "$RUN/$svc.log" ]] && logs+=("$RUN/$svc.log")
  done
  "$JAVA" -cp "$CLASSPATH_SHOP" dev.richter.shop.SpanExport "$out" "${logs[@]}"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  spans) shift; cmd_spans "$@" ;;
  *) echo "usage: $0 start|stop|status|spans <outfile>" >&2; exit 2 ;;
esac
