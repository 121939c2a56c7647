#!/usr/bin/env bash
# Fault-injection harness for probe + fault-decider: builds both modules, compiles
# bench/fault-decider/FaultBench.java against them and runs it. Everything stays on loopback.
# Settings: TRIALS (per fault kind), FP_TRIALS, FP_ROUNDS, PARALLEL, PEER_TRIALS, SEED, RULES_JSON, BENCH_DEBUG
# (see FaultBench). Takes about 4 minutes on 2 cores with the defaults.
# Last line: detect_p99_s=<x> fp_pct=<y> fn_pct=<z>
set -euo pipefail
cd "$(dirname "$0")/.."
export JAVA_HOME="${JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
JAVA="$JAVA_HOME/bin/java"
OUT=bench/fault-decider/target
mkdir -p "$OUT/classes"
mvn -q -o -pl functions/probe,functions/fault-decider -DskipTests compile \
  dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt >&2 \
  || mvn -q -pl functions/probe,functions/fault-decider -DskipTests compile \
       dependency:build-classpath -Dmdep.outputFile=target/bench-classpath.txt >&2
CP="functions/probe/target/classes:functions/fault-decider/target/classes:$(cat functions/probe/target/bench-classpath.txt):$(cat functions/fault-decider/target/bench-classpath.txt)"
"$JAVA_HOME/bin/javac" --release 21 -nowarn -cp "$CP" -d "$OUT/classes" bench/fault-decider/FaultBench.java
exec "$JAVA" -Xmx2g -Dlog4j2.configurationFile=bench/fault-decider/log4j2-bench.xml -cp "$OUT/classes:$CP" FaultBench
