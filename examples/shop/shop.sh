#!/usr/bin/env bash
# Runs the Richter demo shop, a Spring Boot 3 system with no Richter code in it:
#
#   client -> gateway :18080 (Spring Cloud Gateway) -> order :18081 -> inventory :18082 -> H2 :18092, Redis :18093
#                                                        ├──────────-> payment :18083 (the external exit)
#                                                        └──────────-> DynamoDB :18096 (dynalite, placed orders)
#
# Every service runs with the OpenTelemetry Java agent and the contrib baggage span processor; gateway, order and
# inventory also with Richter's agent extension (agent/target/richter-otel-extension.jar), which isolates marked
# traffic: mocks at exits, shadow tables and keys, 503 until its isolation document is loaded.
#
#   shop.sh start            build if needed, start H2, Redis, DynamoDB (dynalite, from local/node) and the four
#                            services, wait for /actuator/health
#   shop.sh stop [PART...]   stop them (TERM, then KILL after 10 s); no process is left behind; with parts (gateway,
#                            order, inventory, payment, db, redis, dynamodb) only those, e.g. to start inventory again with other
#                            settings: shop.sh stop inventory && SHOP_STORE_LATENCY_MS=50 shop.sh start
#   shop.sh status           pid and health of each; exit 1 if any is down
#   shop.sh sql <statement>  run one SQL statement on the shop's database (H2 Shell), e.g. counts for a test
#
# Env (README.md lists them all): SHOP_*_PORT, SHOP_ISOLATION_URL (Richter's GET /safety/isolation; each service
# adds ?service=<name>), SHOP_ISOLATION_TOKEN, SHOP_ISOLATION_FILE, SHOP_ISOLATION_REFRESH_S, SHOP_JAVA_OPTS,
# SHOP_RUN_DIR (default target/run), SHOP_NO_BUILD=1, SHOP_START_TIMEOUT_S, and the services' own SHOP_* variables.
set -euo pipefail

SHOP_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$SHOP_DIR/../.." && pwd)"
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
TARGET="$SHOP_DIR/target"
RUN="${SHOP_RUN_DIR:-$TARGET/run}"
AGENT="$TARGET/otel/opentelemetry-javaagent.jar"
BAGGAGE_EXT="$TARGET/otel/opentelemetry-baggage-processor.jar"
H2_JAR="$TARGET/otel/h2.jar"
RICHTER_EXT="${SHOP_RICHTER_EXTENSION:-$ROOT/agent/target/richter-otel-extension.jar}"
SERVICES=(payment inventory order gateway)   # start order: downstream first

export SHOP_GATEWAY_PORT="${SHOP_GATEWAY_PORT:-18080}"
export SHOP_ORDER_PORT="${SHOP_ORDER_PORT:-18081}"
export SHOP_INVENTORY_PORT="${SHOP_INVENTORY_PORT:-18082}"
export SHOP_PAYMENT_PORT="${SHOP_PAYMENT_PORT:-18083}"
export SHOP_DB_PORT="${SHOP_DB_PORT:-18092}"
export SHOP_REDIS_PORT="${SHOP_REDIS_PORT:-18093}"
export SHOP_DYNAMODB_PORT="${SHOP_DYNAMODB_PORT:-18096}"
export SHOP_ORDER_URL="${SHOP_ORDER_URL:-http://127.0.0.1:$SHOP_ORDER_PORT}"
export SHOP_INVENTORY_URL="${SHOP_INVENTORY_URL:-http://127.0.0.1:$SHOP_INVENTORY_PORT}"
export SHOP_PAYMENT_URL="${SHOP_PAYMENT_URL:-http://127.0.0.1:$SHOP_PAYMENT_PORT}"
export SHOP_DB_URL="${SHOP_DB_URL:-jdbc:h2:tcp://127.0.0.1:$SHOP_DB_PORT/shop}"
export SHOP_REDIS_URL="${SHOP_REDIS_URL:-redis://127.0.0.1:$SHOP_REDIS_PORT}"
export SHOP_DYNAMODB_URL="${SHOP_DYNAMODB_URL:-http://127.0.0.1:$SHOP_DYNAMODB_PORT}"
DYNALITE="$ROOT/local/node/node_modules/dynalite/cli.js"

port_of() {
  case "$1" in
    gateway) echo "$SHOP_GATEWAY_PORT" ;;
    order) echo "$SHOP_ORDER_PORT" ;;
    inventory) echo "$SHOP_INVENTORY_PORT" ;;
    payment) echo "$SHOP_PAYMENT_PORT" ;;
    db) echo "$SHOP_DB_PORT" ;;
    redis) echo "$SHOP_REDIS_PORT" ;;
    dynamodb) echo "$SHOP_DYNAMODB_PORT" ;;
  esac
}

# what identifies the process of a part in /proc/<pid>/cmdline
signature_of() {
  case "$1" in
    db) echo "org.h2.tools.Server" ;;
    redis) echo "redis-server" ;;
    dynamodb) echo "$DYNALITE" ;;
    *) echo "$TARGET/../$1/target/$1.jar" | sed 's#/target/\.\./#/#' ;;
  esac
}

# pid of a running part, or nothing; a pid file whose process is gone or is no longer this part's (pid reused)
# counts as not running, so stop never signals an unrelated process
running_pid() {
  local pidfile="$RUN/$1.pid" pid
  [[ -f "$pidfile" ]] || return 0
  pid="$(cat "$pidfile")"
  [[ "$pid" =~ ^[0-9]+$ ]] || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$(signature_of "$1")"; then echo "$pid"; fi
}

build_if_needed() {
  [[ "${SHOP_NO_BUILD:-0}" == 1 ]] && return 0
  local stale=0 svc
  for svc in "${SERVICES[@]}"; do
    local jar="$SHOP_DIR/$svc/target/$svc.jar"
    if [[ ! -f "$jar" || -n "$(find "$SHOP_DIR/$svc/src/main" "$SHOP_DIR/$svc/pom.xml" "$SHOP_DIR/pom.xml" -newer "$jar" -print -quit)" ]]; then
      stale=1
    fi
  done
  if ((stale)) || [[ ! -f "$AGENT" || ! -f "$BAGGAGE_EXT" || ! -f "$H2_JAR" ]]; then
    echo "building shop ..."
    mvn -B -q -f "$SHOP_DIR/pom.xml" package -DskipTests
  fi
  if [[ ! -f "$RICHTER_EXT" ]]; then
    echo "building Richter's agent extension ..."
    mvn -B -q -f "$ROOT/pom.xml" package -DskipTests -pl agent -am
  fi
}

need_redis() {
  command -v redis-server >/dev/null 2>&1 && return 0
  echo "installing redis-server (Debian package) ..."
  apt-get update -qq && apt-get install -y -qq redis-server >/dev/null
}

need_dynalite() {
  [[ -f "$DYNALITE" ]] && return 0
  command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq nodejs npm >/dev/null; }
  echo "installing dynalite (local/node: npm ci) ..."
  (cd "$ROOT/local/node" && npm ci --no-audit --no-fund --loglevel=error)
}

health_url() { echo "http://127.0.0.1:$(port_of "$1")/actuator/health"; }

java_opts_of() {
  local svc="$1" ext="$BAGGAGE_EXT"
  if [[ "$svc" != payment ]]; then
    ext="$BAGGAGE_EXT,$RICHTER_EXT"
    if [[ -n "${SHOP_ISOLATION_URL:-}" ]]; then
      local sep='?'; [[ "$SHOP_ISOLATION_URL" == *\?* ]] && sep='&'
      echo "-Drichter.isolation.url=${SHOP_ISOLATION_URL}${sep}service=$svc"
    fi
    [[ -n "${SHOP_ISOLATION_FILE:-}" ]] && echo "-Drichter.isolation.file=$SHOP_ISOLATION_FILE"
    [[ -n "${SHOP_ISOLATION_REFRESH_S:-}" ]] && echo "-Drichter.isolation.refresh-s=$SHOP_ISOLATION_REFRESH_S"
  fi
  echo "-Dotel.javaagent.extensions=$ext"
}

start_db() {
  [[ -n "$(running_pid db)" ]] && return 0
  mkdir -p "$RUN/h2"
  # -ifNotExists lets inventory create the database on first connect; loopback only
  nohup "$JAVA" -Xmx128m -cp "$H2_JAR" org.h2.tools.Server -tcp -tcpPort "$SHOP_DB_PORT" -ifNotExists \
    -baseDir "$RUN/h2" >"$RUN/db.log" 2>&1 </dev/null &
  echo $! >"$RUN/db.pid"
}

start_redis() {
  [[ -n "$(running_pid redis)" ]] && return 0
  need_redis
  nohup redis-server --port "$SHOP_REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no \
    >"$RUN/redis.log" 2>&1 </dev/null &
  echo $! >"$RUN/redis.pid"
}

start_dynamodb() {
  [[ -n "$(running_pid dynamodb)" ]] && return 0
  need_dynalite
  # in memory: the tables live as long as the process, as H2's and Redis's data do
  nohup node "$DYNALITE" --port "$SHOP_DYNAMODB_PORT" --host 127.0.0.1 >"$RUN/dynamodb.log" 2>&1 </dev/null &
  echo $! >"$RUN/dynamodb.pid"
}

wait_port() {
  local part="$1" deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$(port_of "$part")") 2>/dev/null; then echo "$part up on :$(port_of "$part")"; return 0; fi
    sleep 0.2
  done
  echo "$part not listening on :$(port_of "$part") after 30 s; see $RUN/$part.log" >&2
  return 1
}

start_one() {
  local svc="$1" pid opts=()
  pid="$(running_pid "$svc")"
  if [[ -n "$pid" ]]; then echo "$svc already running (pid $pid)"; return 0; fi
  mapfile -t opts < <(java_opts_of "$svc")
  # the token goes through the environment, never the command line (ps shows the command line)
  # shellcheck disable=SC2086  # SHOP_JAVA_OPTS is a list of options
  RICHTER_ISOLATION_TOKEN="${SHOP_ISOLATION_TOKEN:-}" nohup "$JAVA" ${SHOP_JAVA_OPTS:--Xmx256m -XX:TieredStopAtLevel=1} \
    -javaagent:"$AGENT" \
    "${opts[@]}" \
    -Dotel.java.experimental.span-attributes.copy-from-baggage.include='*' \
    -Dotel.propagators=tracecontext,baggage \
    -Dotel.service.name="$svc" \
    -Dotel.resource.attributes=service.namespace=richter-shop \
    -Dotel.traces.exporter=logging-otlp \
    -Dotel.metrics.exporter=none \
    -Dotel.logs.exporter=none \
    -Dotel.bsp.schedule.delay=500 \
    -jar "$SHOP_DIR/$svc/target/$svc.jar" >"$RUN/$svc.log" 2>&1 </dev/null &
  echo $! >"$RUN/$svc.pid"
}

wait_healthy() {
  local svc="$1" limit="${SHOP_START_TIMEOUT_S:-180}" deadline
  deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    if ! kill -0 "$(cat "$RUN/$svc.pid" 2>/dev/null || echo 0)" 2>/dev/null; then
      echo "$svc exited during start; last log lines:" >&2
      tail -n 20 "$RUN/$svc.log" >&2
      return 1
    fi
    if curl -fs -o /dev/null --max-time 2 "$(health_url "$svc")"; then
      echo "$svc up on :$(port_of "$svc") (pid $(running_pid "$svc"))"
      return 0
    fi
    sleep 0.5
  done
  echo "$svc not healthy after $limit s; see $RUN/$svc.log" >&2
  return 1
}

any_running() {
  local part
  for part in "${SERVICES[@]}" db redis dynamodb; do [[ -n "$(running_pid "$part")" ]] && return 0; done
  return 1
}

cmd_start() {
  # never rebuild the jars under running JVMs
  any_running || build_if_needed
  mkdir -p "$RUN"
  start_db
  start_redis
  start_dynamodb
  wait_port db || { cmd_stop; exit 1; }
  wait_port redis || { cmd_stop; exit 1; }
  wait_port dynamodb || { cmd_stop; exit 1; }
  # all four JVMs start at once; each waits for nothing but its own port
  for svc in "${SERVICES[@]}"; do start_one "$svc"; done
  for svc in "${SERVICES[@]}"; do
    if ! wait_healthy "$svc"; then cmd_stop; exit 1; fi
  done
}

stop_part() {
  local part="$1" pid i
  pid="$(running_pid "$part")"
  if [[ -n "$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
    echo "$part stopped (pid $pid)"
  fi
  rm -f "$RUN/$part.pid"
}

cmd_stop() {
  local part
  if (($#)); then
    for part in "$@"; do
      case "$part" in
        gateway|order|inventory|payment|db|redis|dynamodb) ;;
        *) echo "shop.sh stop: no part $part (gateway, order, inventory, payment, db, redis, dynamodb)" >&2; exit 2 ;;
      esac
    done
    for part in "$@"; do stop_part "$part"; done
    return 0
  fi
  for part in gateway order inventory payment; do stop_part "$part" & done
  wait
  stop_part redis &
  stop_part db &
  stop_part dynamodb &
  wait
}

cmd_status() {
  local svc pid rc=0 health
  for svc in "${SERVICES[@]}"; do
    pid="$(running_pid "$svc")"
    if [[ -z "$pid" ]]; then echo "$svc: stopped"; rc=1; continue; fi
    health="$(curl -sS --max-time 2 "$(health_url "$svc")" 2>/dev/null || echo 'no answer')"
    echo "$svc: pid $pid, :$(port_of "$svc"), health $health"
    [[ "$health" == *'"status":"UP"'* ]] || rc=1
  done
  for part in db redis dynamodb; do
    pid="$(running_pid "$part")"
    if [[ -z "$pid" ]]; then echo "$part: stopped"; rc=1; else echo "$part: pid $pid, :$(port_of "$part")"; fi
  done
  return $rc
}

cmd_sql() {
  local sql="${1:?usage: shop.sh sql <statement>}"
  "$JAVA" -cp "$H2_JAR" org.h2.tools.Shell -url "$SHOP_DB_URL" -user sa -password '' -sql "$sql"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) shift; cmd_stop "$@" ;;
  status) cmd_status ;;
  sql) shift; cmd_sql "$@" ;;
  *) echo "usage: $0 start|stop [part...]|status|sql <statement>" >&2; exit 2 ;;
esac
