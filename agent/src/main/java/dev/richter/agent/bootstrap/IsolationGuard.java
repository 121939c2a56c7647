package dev.richter.agent.bootstrap;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The isolation as the instrumented clients and servers see it, whatever class loader they are in. Implemented by the
 * extension ({@code dev.richter.agent.isolation.RichterIsolationGuard}) and installed into {@link IsolationBridge} at
 * agent start. Only java.base types cross it. Implementations never throw.
 *
 * <p>{@link #decideHttp} is the one rule for every HTTP client (the JDK's today; Apache HttpClient 5 and OkHttp call
 * it the same way), and {@link #decideGrpc} the rule for gRPC calls by method; a datastore or broker has its own {@code decide...} method answering a {@link ShadowDecision}
 * (the document's {@code shadows}): JDBC ({@link #decideSql}, {@link #decideJdbcUrl}, {@link #decideConnection}) and
 * Redis ({@link #decideRedis}), Kafka ({@link #decideTopic}) and the AWS SDK v2 ({@link #decideAwsSdk}) today. Their defaults decide nothing (unmarked,
 * untouched: the guard installed before
 * the extension starts); the extension's guard overrides every one.
 */
public interface IsolationGuard {

    /**
     * Decides an outgoing HTTP call made in the current OpenTelemetry context; the marker is read from that context's
     * baggage.
     *
     * @param method request method, e.g. {@code POST}
     * @param host   target host as in the URI, e.g. {@code api.stripe.com}
     * @param port   target port; the scheme's default (80, 443) when the URI names none
     * @param path   raw path without query, {@code /} when empty
     * @return {@link ExitDecision#PASS} for every unmarked call
     */
    ExitDecision decideHttp(String method, String host, int port, String path);

    /**
     * Decides an outgoing gRPC call made in the current OpenTelemetry context, by the document's {@code scope} and
     * {@code grpcMocks} (the extension's {@code GrpcExitPolicy}).
     *
     * @param host       the host of the channel's authority (or the call's), e.g. {@code payments.internal}
     * @param port       its port; 443, gRPC's default, when the authority names none
     * @param fullMethod the method, {@code <package>.<Service>/<Method>}
     * @return {@link ExitDecision#PASS} for every unmarked call; a mock's {@code status} is the gRPC status code's
     *     value and its {@code body} the response message in base64 (status 0) or the status's description
     */
    default ExitDecision decideGrpc(String host, int port, String fullMethod) {
        return ExitDecision.PASS;
    }

    /**
     * Decides an outgoing HTTP call as {@link #decideHttp(String, String, int, String)} does, and as marked also when
     * the current context is not: for a call the application built in a marked context that is sent where that context
     * may not be current (reactor-netty's {@code HttpClient} sends a request when its {@code Mono} is subscribed to,
     * perhaps on another thread).
     *
     * @param markedWhereBuilt whether the call was built in a marked context (its proof checked there)
     * @return as {@link #decideHttp(String, String, int, String)}; decided as marked when {@code markedWhereBuilt}
     */
    default ExitDecision decideHttp(String method, String host, int port, String path, boolean markedWhereBuilt) {
        return decideHttp(method, host, port, path);
    }

    /**
     * Stamps a decision on the span of the call being made ({@code Span.current()}: the agent's client span when it
     * made one) and logs the refusals: {@code richter.mock=true} and {@code richter.mock.exit=<exit id>}, {@code
     * richter.refused=<Refuse.message()>}, or {@code richter.would_refuse=<WouldRefuse.message()>}; {@link
     * ExitDecision.Pass} stamps nothing.
     */
    void record(ExitDecision decision);

    /**
     * Whether an inbound request must be answered {@code 503} before it reaches the service's handler: a marked
     * request while the isolation configuration is not loaded (fail closed).
     *
     * @param baggageHeader the request's {@code baggage} header values joined with {@code ,}, {@code ""} when none
     * @return the plain-text reason to answer with; empty: let it through (always, for unmarked requests)
     */
    Optional<String> inboundRefusal(String baggageHeader);

    /**
     * Makes an inbound request's marker current while its handler runs, when the agent did not already (its server
     * instrumentation is off, or its propagators leave out {@code baggage}), so the calls the handler makes are still
     * decided as marked.
     *
     * @param baggageHeader the request's {@code baggage} header values joined with {@code ,}, {@code ""} when none
     * @return the scope to close when the handler has returned; one that does nothing for an unmarked request or a
     *     context that already holds the marker
     */
    MarkerScope markInbound(String baggageHeader);

    /**
     * Decides a TCP connection that the current thread opens or writes while its context may be marked: the network
     * catch-all behind every client ({@link NetworkGate}). The rule is the extension's {@code NetworkPolicy}.
     *
     * @param host the host as the client named it ({@code InetSocketAddress.getHostString()})
     * @param ip   the address connected to, {@code ""} when unresolved
     * @param port TCP port
     * @return {@link ExitDecision#PASS} for every unmarked connection; else pass, refuse or (report mode) would refuse
     */
    default ExitDecision decideNetwork(String host, String ip, int port) {
        return ExitDecision.PASS;
    }

    /**
     * Makes current, until the scope closes, a context that says the connects and writes it leads to are made for a
     * client whose every call the extension decides by its own rule (Lettuce: its commands are decided before they are
     * written), also where they run on another thread the agent carries the context to (Netty's event loops): the
     * network catch-all ({@link NetworkGate}) passes them as it passes a connection made with a frame of such a client
     * on the stack, and {@link #decideHttp} passes the HTTP calls made in it (the AWS SDK's own HTTP client, once its
     * call was decided). Nothing changes for an unmarked context.
     *
     * @param client the client's name, e.g. {@code lettuce}
     * @return the scope to close when the client's call has returned
     */
    default MarkerScope decidedClient(String client) {
        return () -> { };
    }

    /**
     * The configuration in force, as an object that is replaced whenever a load changes it: what a decision cached
     * per connection is keyed by ({@link NetworkGate}). {@code null} before the first load.
     */
    default Object configuration() {
        return null;
    }

    /**
     * The proof that travels with the current context's marker (baggage member {@code richter-proof}), to copy where
     * the marker is written by hand (a Kafka record's header); null when there is none.
     */
    default String markerProof() {
        return null;
    }

    /** Whether the call being made carries the load-test marker (the current context's baggage); never throws. */
    default boolean marked() {
        return false;
    }

    /**
     * Decides a marked SQL statement (shadow tables, {@code kind: table}; the connection's database, {@code kind:
     * schema}). Call only when {@link #marked()}: the statement is parsed.
     *
     * @param sql     the statement as the application passed it to {@code Statement.execute*} or {@code
     *                Connection.prepare*}
     * @param catalog the connection's {@code getCatalog()}, {@code ""} when unknown
     * @param schema  the connection's {@code getSchema()}, {@code ""} when unknown
     * @return the SQL with every mapped table replaced by its shadow; a refusal for a write to a table without a
     *     shadow, a statement that cannot be parsed, or a connection to a production database that has a shadow
     */
    default ShadowDecision decideSql(String sql, String catalog, String schema) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Decides a marked execution of a prepared statement that was prepared unmarked (its SQL was never decided and is
     * not known here).
     *
     * @return a refusal (enforce), or a {@link ExitDecision.WouldRefuse} (report)
     */
    /**
     * Whether a marked statement's decision depends on its connection's catalog or schema: true when the loaded
     * configuration declares a database or schema shadow ({@code kind: schema}), or none has loaded yet. When false,
     * the JDBC helper never asks the driver for them, so a marked statement costs no round trip production does not
     * pay.
     */
    default boolean decidesByConnectionSchema() {
        return true;
    }

    default ShadowDecision decidePreparedUnmarked() {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Decides a JDBC URL a connection is being opened with ({@code Driver.connect}), in the current context.
     *
     * @return {@link ShadowDecision#UNTOUCHED} unmarked; marked: the URL with its database replaced by the shadow
     *     ({@code kind: schema}), or untouched when it names no mapped database
     */
    default ShadowDecision decideJdbcUrl(String url) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Decides a connection a marked call took from a {@code DataSource} (a pool's, perhaps opened unmarked).
     *
     * @param catalog the connection's {@code getCatalog()}, {@code ""} when unknown
     * @param schema  the connection's {@code getSchema()}, {@code ""} when unknown
     * @return the shadow schema to switch it to ({@code setSchema}, or {@code setCatalog} when the catalog is the
     *     mapped one), or untouched; {@link ShadowDecision#UNTOUCHED} unmarked
     */
    default ShadowDecision decideConnection(String catalog, String schema) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Decides one key of a Redis command in the current context ({@code kind: cache}, by key prefix).
     *
     * @param command the command's name, upper case, e.g. {@code SET}
     * @param key     the key, UTF-8 text
     * @return {@link ShadowDecision#UNTOUCHED} unmarked; marked: the shadow key, or untouched (a key already a
     *     shadow's, a read of an unmapped key), or a refusal (a write to a key no prefix maps)
     */
    default ShadowDecision decideRedis(String command, String key) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Decides one key of a Redis command as {@link #decideRedis(String, String)} does, and as marked also when the
     * current context is not: for a command the application built in a marked context that is sent where that context
     * may not be current (Lettuce's reactive API sends a command when it is subscribed to, perhaps on another thread).
     *
     * @param markedWhereBuilt whether the command was built in a marked context
     * @return as {@link #decideRedis(String, String)}; decided as marked when {@code markedWhereBuilt}
     */
    default ShadowDecision decideRedis(String command, String key, boolean markedWhereBuilt) {
        return decideRedis(command, key);
    }

    /**
     * Decides the topic of a record sent in the current context ({@code kind: topic}).
     *
     * @return {@link ShadowDecision#UNTOUCHED} unmarked; marked: the shadow topic, or untouched (already a shadow
     *     topic), or a refusal (a topic no shadow maps)
     */
    default ShadowDecision decideTopic(String topic) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * The {@code kind: topic} shadows of the loaded document, for the Kafka consumer's shadow consumer: production
     * topic → shadow topic, names exact. The same instance while the document's shadows do not change.
     *
     * @return empty before a document has loaded, or when it maps no topic
     */
    default Map<String, String> topicShadows() {
        return Collections.emptyMap();
    }

    /**
     * Whether a message that arrived with these {@code baggage} header values (a Kafka record's) is marked work this
     * service accepts, checked as an inbound request's marker is ({@link #markInbound}): it carries the marker and,
     * once a document has loaded, a proof ({@code richter-proof}) that the document's keys verify.
     *
     * @param baggageHeader the message's {@code baggage} header values joined with {@code ,}, {@code ""} when none
     * @return false for an unmarked message or one whose proof does not verify
     */
    default boolean acceptsMarker(String baggageHeader) {
        return false;
    }

    /**
     * Decides one target of a call made with the AWS SDK for Java v2 in the current context: a DynamoDB table ({@code
     * kind: dynamodb}), an SQS queue URL ({@code kind: queue}), an SNS topic ({@code sns-topic}), an S3 object ({@code
     * s3}), an EventBridge bus ({@code event-bus}) or a Kinesis stream ({@code kinesis-stream}); the rule is the
     * extension's {@code AwsSdkPolicy}. A
     * call the SDK makes while it runs a call already decided (its credentials, endpoint discovery: the context names
     * the decided client {@code aws-sdk}) is not decided again.
     *
     * @param service   the SDK's service as in its model package, e.g. {@code dynamodb}, {@code sqs}, {@code s3}
     * @param operation the SDK's operation name, e.g. {@code PutItem}; {@code <operation> source} for an S3 copy's source
     * @param target    one table name or ARN, queue URL, topic ARN, {@code bucket/key}, bus or stream the request names;
     *                  {@code ""} when it names none
     * @return {@link ShadowDecision#UNTOUCHED} unmarked; marked: the shadow target to send instead, untouched, or a
     *     refusal (an unmapped target, an operation Richter does not shadow, no document loaded)
     */
    default ShadowDecision decideAwsSdk(String service, String operation, String target) {
        return ShadowDecision.UNTOUCHED;
    }

    /**
     * Stamps a datastore decision on the current span: {@code richter.shadow.target=<shadow>} when it is routed, then
     * its verdict as {@link #record(ExitDecision)} does.
     */
    default void record(ShadowDecision decision) {}

    /**
     * The {@code kind: table} shadows of the loaded document, for the shadow pre-check: production table (lower case)
     * → shadow table. The same instance while the document's shadows do not change.
     *
     * @return empty before a document has loaded, or when it maps no table
     */
    default Map<String, String> tableShadows() {
        return Collections.emptyMap();
    }

    /**
     * Records one round of the shadow pre-check of a database: one span {@code richter.shadow-precheck} with a child
     * per table (agent/README.md, "Shadow pre-check"), and a log line per failure.
     *
     * @param database the database checked: its JDBC URL without parameters
     * @param checks   one per {@code kind: table} shadow, by production table name
     */
    default void recordShadowChecks(String database, List<ShadowCheck> checks) {}

    /**
     * Makes the root OpenTelemetry context current on this thread (no marker, no span), with the agent's
     * instrumentation suppressed, for the extension's own work on a thread an instrumented executor may have handed a
     * marked context: the pre-check's connections and statements are never decided as marked, and make no spans of
     * the service's (its probe INSERT into a shadow would read as unmarked traffic touching a shadow).
     *
     * @return the scope to close when that work is done
     */
    default MarkerScope detached() {
        return () -> { };
    }
}
