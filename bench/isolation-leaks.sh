#!/usr/bin/env bash
# The isolation's leak matrix (issue 46 item 7): does a marked (load-test) call of each client and store reach
# production? For each case a service with no Richter code (the agent module's IT test applications: IsolationTestApp,
# StorageTestApp, LettuceTestApp, JdbcTestApp, AwsSdkTestApp) runs in its own child JVM with the OpenTelemetry agent 2.22.0 and the
# built extension, and sends marked calls to a mapped target (a mocked exit; a shadowed table, key prefix, topic,
# database), an unmapped one (a table, key, topic without a shadow) and, for HTTP clients, an out-of-scope host and an
# out-of-scope closed port. Every effect is counted at the receiving side, never by the service: the real server's request counter, the
# database's rows (SELECT count(*)), Redis's keys (EXISTS), the broker's end offsets (Admin.listOffsets); after each
# marked call the same call unmarked must be counted there (the control), or the count proves nothing.
# Cases: HTTP jdk, okhttp, apache, spring (RestClient), urlconnection, resttemplate, apache4 (Apache HttpClient 4.5),
# and with no module of their own (the network catch-all) socket (java.net.Socket), channel (SocketChannel); section http-async
# (ReactiveClients): reactor-netty's HttpClient (1.2.11) subscribed on the request's thread and on a thread without its
# context (elsewhere), Spring's WebClient over it (toEntity, bodyToMono), Apache HttpClient 5's async client (Future,
# FutureCallback) and a Spring WebFlux handler's WebClient (WebFluxTestApp: on the event loop, and after a hop to
# another thread), each to a mocked exit, an unmapped path of the exit's host, an out-of-scope host and a closed port; JDBC H2 statement, prepared and
# HikariCP (schema shadow), HSQLDB, PostgreSQL and MariaDB when installed (statement, prepared, unmapped table, shadow
# database by URL); Jedis SET mapped, SET unmapped, MSET and DEL with one unmapped key; Lettuce 6.6 (LettuceTestApp, NIO
# transport) through its sync, async and reactive APIs, the reactive one also subscribed off the request's context
# (elsewhere), and Spring Data Redis's StringRedisTemplate and ReactiveStringRedisTemplate: SET mapped, SET unmapped,
# MSET with one unmapped key, MSET whose values are its keys' names, DEL with one unmapped key; the Kafka producer,
# mapped and unmapped topic; the AWS SDK v2's DynamoDB client (AwsSdkTestApp) to the local stack's dynalite when node is
# installed, PutItem and BatchWriteItem to a mapped table, PutItem to an unmapped one; the AWS SDK v2's other shadowed
# services (section aws, AwsSdkTestApp's /aws): SQS SendMessage and SendMessageBatch to a mapped queue and SendMessage
# to an unmapped one, counted at ElasticMQ; S3 PutObject, a multipart upload and CopyObject to a mapped bucket, PutObject
# to a mapped key prefix and to an unmapped one, DeleteObject and DeleteObjects in a mapped bucket and an unmapped
# prefix, counted at S3Proxy's blob store; SNS Publish and PublishBatch to a mapped topic and Publish to an unmapped
# one, EventBridge PutEvents on the default bus (mapped) and an unmapped bus, Kinesis PutRecord and PutRecords to a
# mapped stream and PutRecord to an unmapped one, counted at a recording endpoint (no local server for them on Maven
# Central or in Debian); Kafka's consumer side
# (KafkaConsumerTestApp: a plain poll loop and a spring-kafka @KafkaListener on kafka-clients 3.9.1, section
# kafka-consumer): a signed record on the shadow topic and on the production topic, a forged and an unmarked one on
# the shadow topic, and the production group's committed offsets (Admin.listConsumerGroupOffsets); corpus bug 44 (../shared/corpus/bugs/44-sql-data-modifying-cte.sql: a DELETE in a WITH) on H2 and on
# PostgreSQL; corpus bug 43 (java.io.tmpdir under a regular file); gRPC (grpc-java 1.76.0 over grpc-netty-shaded,
# GrpcTestApp) blocking and future unary calls to a mocked method, an unmocked method of a server out of scope and a
# closed port, counted by the real gRPC server (section grpc).
# Each (case, target) is: isolated (nothing reached production and the extension refused, mocked or shadowed it, seen
# in its refusal message, the mock's body or the count at the shadow), leaked (a marked effect reached production),
# unguarded (nothing reached production only because the call failed for another reason). The span stamps of each
# child (richter.refused, richter.mock, richter.shadow.target, richter.isolation.active) are listed under the table.
# Settings: SERVICE_JAVA=17 (Debian's, the default) | 25 (temurin) | <path to bin/java>: the services' Java (or
# --java <same>). The matrix drives from the JDK 25 build Java. About 80 s on 2 cores, the build included.
# Exit 1 when a case leaked, 2 when a control was not counted or a case failed to run. Last line:
#   cases=<n> leaked=<n> unguarded=<n> refused=<n>
set -euo pipefail
SERVICE_JAVA="${SERVICE_JAVA:-17}"
if [[ "${1:-}" == "--java" ]]; then SERVICE_JAVA="${2:?--java 17|25|<path>}"; fi
case "$SERVICE_JAVA" in
  17) SERVICE_JAVA=/usr/lib/jvm/java-17-openjdk-amd64/bin/java ;;
  25) SERVICE_JAVA=/usr/lib/jvm/temurin-25-jdk-amd64/bin/java ;;
esac
[[ -x "$SERVICE_JAVA" ]] || { echo "no java at $SERVICE_JAVA (SERVICE_JAVA=17|25|<path to bin/java>)" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" isolation-leaks
command -v redis-server >/dev/null 2>&1 || { echo "needs redis-server: apt-get install -y redis-server" >&2; exit 2; }
# the extension jar, the agent jar, the test classes and target/app-classpath.txt (the child JVMs' HTTP clients)
bench_build agent -pl agent -am
AGENT="$ROOT/agent/target"
cd "$ROOT/agent"
# the servers' data, sockets and the children's logs go to agent/target; the driver's own logging to $WORK/matrix.log
set +e
java -Xmx768m -cp "$AGENT/test-classes:$(cat "$WORK/cp.txt")" \
  -Drichter.agent.jar="$AGENT/otel/opentelemetry-javaagent.jar" -Drichter.extension.jar="$AGENT/richter-otel-extension.jar" \
  -Drichter.app.classpath="$AGENT/app-classpath.txt" -Drichter.it.serviceJava="$SERVICE_JAVA" \
  -Drichter.kafka39.jar="$AGENT/otel/kafka-clients-3.9.jar" \
  dev.richter.agent.it.LeakMatrix >"$WORK/matrix.out" 2>"$WORK/matrix.log"
status=$?
set -e
if ((status > 1)); then
  echo "the matrix did not run whole (exit $status); its log:" >&2
  grep -E 'leak matrix:|Exception|rror' "$WORK/matrix.log" | tail -40 >&2
fi
# the table, then the summary as the last line
cat "$WORK/matrix.out"
exit "$status"
