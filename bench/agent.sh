#!/usr/bin/env bash
# Per-call overhead of the Richter agent extension (agent/): the OpenTelemetry agent 2.22.0 alone against the agent
# with the extension, same workload (bench/agent/AgentBench.java), each in its own child JVM, warmed up, many calls;
# the loopback server in a third JVM without any agent. One call at a time, two sections:
# HTTP, JDK HttpClient.send:
#   unmarked     no marker: the extension must cost next to nothing (goal <= 5 us per call);
#   marked       marked and mocked by the extension's document (latencyMs 0), so it never leaves the JVM: its whole
#                time is what the extension spends deciding and answering (the agent's own client span included);
#                goal <= 50 us per call. Under the agent alone the same call is a real one (reported for comparison);
#   marked_pass  marked, to an exit in the test's scope: the extension decides and lets it through (reported).
# JDBC, a PreparedStatement "INSERT INTO visits (page) VALUES (?)" prepared, executed and closed per call (as an
# application whose pool caches no statements), on one connection to H2 (the agent module's test version, 2.3.232)
# in memory in the client's JVM:
#   jdbc_unmarked  no marker, into visits (goal <= 5 us per call);
#   jdbc_marked    marked: the extension's document maps visits to visits_shadow (kind table), so the prepare is
#                  decided and rewritten and the execution checked (goal <= 50 us per call). The same SQL text every
#                  call: the steady state, in which the extension's parse cache answers; a new text's parse is the
#                  advice line "a new SQL text per call". Under the agent alone it goes into visits.
#   The rows are counted at the end in each client's JVM; the bench fails unless the extension's marked rows are all
#   in visits_shadow and its unmarked ones in visits (alone: all in visits).
# Both client JVMs run side by side, driven round by round in alternating order (AgentBench compare): each round of
# the extension is paired with the agent-alone round next to it, and a kind's overhead is the median of the paired
# differences, so this shared host's drift cancels. The measure is the client JVM's CPU time per call (all threads)
# (a neighbour takes wall time from a call, not CPU time); wall time is printed next to it.
# http: unmarked_overhead_us = cpu(unmarked, extension) - cpu(unmarked, alone); marked_overhead_us = cpu(marked,
# extension), the mocked call's whole time. jdbc: unmarked_overhead_us and marked_overhead_us = cpu(extension) -
# cpu(alone) of jdbc_unmarked and jdbc_marked (both insert a row).
# After each section, the extension's advice alone (its helpers, JdkHttpClientExits.beforeSend; JdbcExits.beforeSqlOf,
# afterPrepare and beforeExecutePrepared; called in the extension's JVM, no network, no database), unmarked and
# marked: the floor under the figures, exact where the paired differences carry this host's noise.
# Settings: BENCH_JAVA_OPTS (e.g. "-Dbench.rounds=100 -Dbench.calls=500 -Dbench.jdbcCalls=2000"). About 2 minutes on 2
# cores.
# Last three lines: the http figures, the jdbc figures, then the worse (max) of the two per field:
#   http: unmarked_overhead_us=<x> marked_overhead_us=<y>
#   jdbc: unmarked_overhead_us=<x> marked_overhead_us=<y>
#   unmarked_overhead_us=<max x> marked_overhead_us=<max y>
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" agent-bench
bench_build agent -pl agent -am
# a snapshot of the jars: a build in another terminal must not swap one under a running JVM
cp agent/target/otel/opentelemetry-javaagent.jar "$WORK/agent.jar"
cp agent/target/richter-otel-extension.jar "$WORK/extension.jar"
# the application API the bench marks its calls with (the agent bridges it): opentelemetry-api, -context and -common
API_CP="$(tr ':' '\n' <"$WORK/cp.txt" | grep -E '/opentelemetry-(api|context|common)-[0-9][^/]*\.jar$' | while read -r j; do
  cp "$j" "$WORK/" && printf '%s:' "$WORK/$(basename "$j")"; done)"
javac --release 21 -nowarn -cp "$API_CP" -d "$WORK/classes" bench/agent/AgentBench.java
# the JDBC kinds' driver: H2, the version the agent module tests the extension with (its class path)
H2_JAR="$(tr ':' '\n' <"$WORK/cp.txt" | grep -E '/com/h2database/h2/[^/]+/h2-[^/]+\.jar$' | head -1)"
[[ -n "$H2_JAR" ]] || { echo "no H2 jar on the agent module's class path" >&2; exit 2; }
cp "$H2_JAR" "$WORK/"
CP="$WORK/classes:$API_CP$WORK/$(basename "$H2_JAR")"
SERVER_CPU=0; CLIENT_CPU=1
(( $(nproc) < 2 )) && { SERVER_CPU=0; CLIENT_CPU=0; echo "warning: 1 core, the server and the client share it" >&2; }

SERVER_PID=""
stop_server() { [[ -n "$SERVER_PID" ]] && kill "$SERVER_PID" 2>/dev/null; wait "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap stop_server EXIT INT TERM
taskset -c "$SERVER_CPU" java -Xmx256m -cp "$CP" AgentBench server >"$WORK/server.out" 2>&1 &
SERVER_PID=$!
for _ in $(seq 100); do grep -q '^PORT ' "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
PORT="$(sed -n 's/^PORT //p' "$WORK/server.out")"
[[ -n "$PORT" ]] || { echo "bench server did not start" >&2; cat "$WORK/server.out" >&2; exit 1; }
# the team's marker key, and the proof every marked call carries (MarkerProof's format, made here with openssl: an
# HMAC-SHA256 over "r1.<team>.<run>.<expires>", its first 16 bytes, base64url), so marked calls are verified as in a
# deployment: one HMAC per token, then the extension's cache
b64url() { base64 -w0 | tr '+/' '-_' | tr -d '='; }
head -c32 /dev/urandom >"$WORK/marker.key"
KEY_HEX="$(od -An -tx1 "$WORK/marker.key" | tr -d ' \n')"
KEY="$(b64url <"$WORK/marker.key")"
PROOF_BODY="r1.$(printf bench | b64url).$(printf bench-run | b64url).$(( $(date +%s) + 7200 ))"
PROOF="$PROOF_BODY.$(printf '%s' "$PROOF_BODY" | openssl dgst -sha256 -mac HMAC -macopt "hexkey:$KEY_HEX" -binary | head -c16 | b64url)"
cat >"$WORK/isolation.json" <<DOC
{"mode": "enforce", "scope": ["127.0.0.1:$PORT"],
 "mocks": [{"exit": "127.0.0.1:$PORT POST /charge", "status": 200, "body": "mocked", "latencyMs": 0}],
 "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow"}],
 "marker": {"team": "bench", "keys": ["$KEY"]}}
DOC

read -r -a EXTRA <<<"${BENCH_JAVA_OPTS:-}"
# the two clients' flags (java @argfile), the same but for the extension's
printf '%s\n' -Xms256m -Xmx256m -XX:+UseSerialGC -javaagent:"$WORK/agent.jar" -Dotel.traces.exporter=none \
  -Dotel.metrics.exporter=none -Dotel.logs.exporter=none -Dotel.service.name=agent-bench -Dbench.marker.proof="$PROOF" \
  "${EXTRA[@]}" -cp "$CP" \
  >"$WORK/alone.args"
{ cat "$WORK/alone.args"; printf '%s\n' -Dotel.javaagent.extensions="$WORK/extension.jar" \
  -Drichter.isolation.file="$WORK/isolation.json"; } >"$WORK/extension.args"
echo "== per-call time (clients on cpu $CLIENT_CPU, server on cpu $SERVER_CPU, $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg); $(basename "$H2_JAR" .jar)) =="
taskset -c "$CLIENT_CPU" java "${EXTRA[@]}" -cp "$CP" AgentBench compare "$PORT" "$WORK/alone.args" "$WORK/extension.args" \
  2> >(grep -v -e '^OpenJDK 64-Bit Server VM warning' -e 'INFO io.opentelemetry.javaagent' -e 'INFO dev.richter' >&2)
