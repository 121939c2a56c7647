#!/usr/bin/env bash
# Richter's own faults, as a matrix on the local stack (bench/own-faults/OwnFaultsBench.java): each fault kind (monitor
# function error, monitor throttle, load-driver crash, DynamoDB throttle on windows, on results and on the abort flag,
# report failure, EventBridge PutEvents failure, an external StopExecution), injected in the pre-test and in a formal
# step, one run per cell against its own target on loopback. One line per cell: end state, time from the fault to the
# target's last request, report written, lease held, requests counted (+ named as not counted) vs the target's count.
# Last line: cells=<n> ended=<n> stuck=<n> leases_held=<n> miscounted=<n> max_load_after_monitor_loss_s=<x>
# Goal: stuck=0 leases_held=0 miscounted=0 and max_load_after_monitor_loss_s <= 2.
# Settings: CELLS (comma-separated fault or cell names, e.g. monitor-error,stop-execution/formal; default all),
# SEED (default 7). Takes about 12 minutes on 2 cores. Uses its own ports (3xxxx), so it runs beside the tests.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" own-faults
[ -d local/node/node_modules/aws-local-stepfunctions ] || (cd local/node && npm ci --no-audit --no-fund --loglevel=error)
bench_build local
# run from a private copy: a build in another terminal must not swap classes under the running stack
mkdir -p "$WORK/lib" && tr ':' '\n' <"$WORK/cp.txt" | xargs -I{} cp {} "$WORK/lib/" && cp -r local/target/classes "$WORK/classes" \
  && cp -r local/target/test-classes "$WORK/test-classes"
# the bench's target is the integration tests' FakeTarget (local's test classes)
CP="$WORK/classes:$WORK/test-classes:$WORK/lib/*"

export AWS_REGION=us-east-1 AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local
export AWS_ENDPOINT_URL_DYNAMODB=http://127.0.0.1:34567 AWS_ENDPOINT_URL_SFN=http://127.0.0.1:34583
export AWS_ENDPOINT_URL_EVENTBRIDGE=http://127.0.0.1:34010 AWS_ENDPOINT_URL_LAMBDA=http://127.0.0.1:34001
export AWS_ENDPOINT_URL_SCHEDULER=http://127.0.0.1:34020 AWS_ENDPOINT_URL_KMS=http://127.0.0.1:34030
export RICHTER_API_PORT=33000 EVENT_BUS_NAME=richter-dev
export LOAD_TEST_RUN_STATE_MACHINE_ARN=arn:aws:states:us-east-1:123456789012:stateMachine:richter-dev-load-test-run
# compressed AWS limits: legs of a 15 s load-driver invocation
export RICHTER_LOCAL_LIMITS="${RICHTER_LOCAL_LIMITS:-param.LoadDriverTimeoutSeconds=15}"
unset RICHTER_LOCAL_FAULTS
mkdir -p build
echo "functions' log: build/own-faults-bench.log" >&2

java --enable-native-access=ALL-UNNAMED -Dio.netty.noUnsafe=true -Xmx3g \
  -Dlog4j2.configurationFile="$ROOT/bench/own-faults/log4j2.xml" \
  -Dbench.cells="${CELLS:-}" -Dbench.seed="${SEED:-7}" -Dbench.debug="${BENCH_DEBUG:-false}" \
  -cp "$CP" bench/own-faults/OwnFaultsBench.java 2>"$ROOT/build/own-faults-bench.log"
