package dev.richter.links.middleware;

import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * The one table of which clients, stores and servers Richter's agent extension guards, keyed by the instrumentation
 * scope the OpenTelemetry Java agent records them under.
 *
 * <p>Sources: the scope names are the agent's instrumentation names ({@code "io.opentelemetry." + module}) as
 * opentelemetry-java-instrumentation v2.22.0 (commit a5c7d88141ce; the agent Richter supports, DESIGN.md §9) spells
 * them in each module's
 * singletons, and each row's library versions are that module's muzzle {@code pass} range (its {@code
 * build.gradle.kts}); guarded or not is agent/README.md, "What is guarded, and what is not": guarded are the JDK
 * {@code HttpClient}, {@code java.net.HttpURLConnection}, Apache HttpClient 5 (classic and async), reactor-netty's
 * {@code HttpClient} ({@code WebClient}, Spring Cloud Gateway's downstream calls), Apache HttpClient 4.3-4.5,
 * OkHttp 4/5, JDBC (any driver), Jedis 7, Lettuce 6 and 7, the Kafka producer and consumer (spring-kafka's listener
 * over it; a consumer that assigns partitions or subscribes by pattern gets no shadow consumer, which a span does not
 * show), the AWS SDK for Java 2, Caffeine and
 * Spring's {@code ConcurrentMapCache}, grpc-java's client channels, and as servers the JDK {@code HttpServer}, jakarta
 * and {@code javax.servlet} (Servlet 3.0+) containers and reactor-netty's server; not guarded are Apache HttpClient
 * 5's minimal async clients, a bare Netty client, Lettuce 5, other
 * in-process caches, the AWS SDK for Java 1, gRPC servers and Servlet 2.x containers. A change to either source changes this table and its test ({@code
 * MiddlewareInventoryTest#tableRowsAreTheAgentsScopeNames}) together. In-process caches (Caffeine, a map) make no span:
 * no trace can show them, so no row names them.
 *
 * <p>What a span cannot tell, and how the table decides (each a named gap):
 * <ul>
 *   <li>the scope's version is the agent's ({@code 2.22.0-alpha}), never the library's: a row gives the library
 *       versions its module instruments;</li>
 *   <li>{@code apache-httpclient-5.0} also records Apache's minimal async clients, {@code okhttp-3.0} also OkHttp 3, {@code
 *       jedis-4.0} also Jedis 4 to 6, {@code apache-httpclient-4.0} also HttpClient 4.0 to 4.2, {@code lettuce-5.1}
 *       also Lettuce 5.1 to 5.3, none of which the extension was built or tested on; the rows read them as the
 *       guarded client (the middleware-version check of a team's SBOM is where such a version is pinned);</li>
 *   <li>{@code netty-4.1} SERVER spans are reactor-netty's server (Spring WebFlux, Spring Cloud Gateway) or a bare
 *       Netty server, which the extension does not gate; servers are listed, not judged.</li>
 * </ul>
 * A span whose scope has no row is classified by its attributes ({@link #classify}) and is never guarded: what the
 * table does not name, the extension does not guard (fail closed).
 */
public final class GuardedMiddleware {
    /**
     * One row.
     *
     * @param scopeName the instrumentation scope name, e.g. {@code io.opentelemetry.lettuce-5.1}
     * @param kinds the span kinds the row covers (one scope records a producer and a consumer); empty: any kind
     * @param library the library as a person names it, e.g. {@code Lettuce}
     * @param versions the library versions the scope's instrumentation covers, e.g. {@code 5.1+}
     * @param role what the library does for the service
     * @param guarded true when the extension guards it (refuses or routes its marked calls)
     * @param note what else is known, shown with it; may be empty
     */
    public record ScopeRow(String scopeName, Set<SpanKind> kinds, String library, String versions, MiddlewareRole role,
                      boolean guarded, String note) {
        boolean covers(Span s) {
            return scopeName.equals(s.scope().name()) && (kinds.isEmpty() || kinds.contains(s.kind()));
        }
    }

    /** The library a span was recorded by, and how it is guarded. */
    public record Library(String library, String versions, MiddlewareRole role, boolean guarded, String note) {}

    private static final String O = "io.opentelemetry.";
    private static final Set<SpanKind> ANY = Set.of();
    private static final Set<SpanKind> SERVER = Set.of(SpanKind.SERVER);
    private static final Set<SpanKind> CLIENT = Set.of(SpanKind.CLIENT);
    private static final Set<SpanKind> PRODUCER = Set.of(SpanKind.PRODUCER);
    private static final Set<SpanKind> NOT_PRODUCER = Set.of(SpanKind.CONSUMER, SpanKind.CLIENT, SpanKind.INTERNAL,
            SpanKind.UNSPECIFIED);

    /** The table, in the order it is searched (a span takes the first row that covers it). */
    public static final List<ScopeRow> ROWS = List.of(
            // guarded clients and stores
            new ScopeRow(O + "java-http-client", ANY, "JDK HttpClient", "Java 11+", MiddlewareRole.HTTP_CLIENT, true, ""),
            new ScopeRow(O + "apache-httpclient-4.0", ANY, "Apache HttpClient 4", "4.3-4.5", MiddlewareRole.HTTP_CLIENT, true,
                    "CloseableHttpClient.doExecute; 4.0-4.2 share the scope and are not guarded"),
            new ScopeRow(O + "apache-httpclient-4.3", ANY, "Apache HttpClient 4", "4.3-4.5 (library instrumentation)",
                    MiddlewareRole.HTTP_CLIENT, true, "CloseableHttpClient.doExecute"),
            new ScopeRow(O + "http-url-connection", ANY, "java.net.HttpURLConnection", "any JDK", MiddlewareRole.HTTP_CLIENT,
                    true, "a marked call to a mocked exit is refused, not mocked"),
            new ScopeRow(O + "apache-httpclient-5.0", ANY, "Apache HttpClient 5", "5.0+", MiddlewareRole.HTTP_CLIENT,
                    true, "classic and async; the same scope records the minimal async clients, which are not guarded"),
            new ScopeRow(O + "reactor-netty-1.0", ANY, "reactor-netty HttpClient", "1.0+ (guarded: 1.x)",
                    MiddlewareRole.HTTP_CLIENT, true, "WebClient and Spring Cloud Gateway's downstream calls; tested on"
                            + " 1.2.11 (Spring Boot 3.5's)"),
            new ScopeRow(O + "okhttp-3.0", ANY, "OkHttp", "3.0+ (guarded: 4, 5)", MiddlewareRole.HTTP_CLIENT, true,
                    "the extension is built and tested on OkHttp 4 and 5"),
            new ScopeRow(O + "jdbc", ANY, "JDBC", "any driver", MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "jedis-4.0", ANY, "Jedis", "4.0+ (guarded: 7)", MiddlewareRole.STORE, true,
                    "the extension is built and tested on Jedis 7"),
            new ScopeRow(O + "lettuce-5.1", ANY, "Lettuce", "5.1+ (guarded: 6.x, 7.x)", MiddlewareRole.STORE, true,
                    "the extension is built and tested on Lettuce 6.6.0 (Spring Boot 3.5's; sync, async, reactive,"
                            + " Spring Data Redis) and tested on 7.7.0"),
            new ScopeRow(O + "kafka-clients-0.11", PRODUCER, "Kafka producer", "0.11+", MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "kafka-clients-2.6", PRODUCER, "Kafka producer", "2.6+ (library instrumentation)",
                    MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "kafka-clients-0.11", NOT_PRODUCER, "Kafka consumer", "0.11+", MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "kafka-clients-2.6", NOT_PRODUCER, "Kafka consumer", "2.6+ (library instrumentation)",
                    MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "spring-kafka-2.7", ANY, "Spring Kafka listener", "2.7+", MiddlewareRole.STORE, true, ""),
            new ScopeRow(O + "grpc-1.6", CLIENT, "gRPC", "1.6+ (guarded: 1.x channels)", MiddlewareRole.RPC_CLIENT, true,
                    "ManagedChannelImpl's calls, mocked by method (grpcMocks) or refused out of scope; tested on"
                            + " grpc-java 1.76.0 over grpc-netty-shaded"),
            new ScopeRow(O + "aws-sdk-2.2", ANY, "AWS SDK for Java 2", "2.2+ (guarded: the sync and async client handlers)",
                    MiddlewareRole.STORE, true, "DynamoDB tables and SQS queues go to their shadows; other services'"
                            + " writes are refused; tested on 2.57.8 (DynamoDB, sync and async)"),
            // guarded servers
            new ScopeRow(O + "java-http-server", ANY, "JDK HttpServer", "any JDK", MiddlewareRole.SERVER, true, ""),
            new ScopeRow(O + "tomcat-10.0", ANY, "Tomcat (jakarta Servlet)", "10.0+", MiddlewareRole.SERVER, true, ""),
            new ScopeRow(O + "servlet-5.0", ANY, "jakarta Servlet container", "Servlet 5.0+", MiddlewareRole.SERVER, true, ""),
            new ScopeRow(O + "tomcat-7.0", ANY, "Tomcat (javax.servlet)", "7.0.4-9", MiddlewareRole.SERVER, true,
                    "tested on Tomcat 9.0.83"),
            new ScopeRow(O + "servlet-3.0", ANY, "javax.servlet container", "Servlet 3.0+", MiddlewareRole.SERVER, true, ""),
            new ScopeRow(O + "netty-4.1", SERVER, "reactor-netty / Netty 4.1 server", "4.1.x", MiddlewareRole.SERVER, true,
                    "the 503 gate is reactor-netty's HttpServer's; a bare Netty server is not gated"),
            // not guarded: clients
            new ScopeRow(O + "apache-httpclient-2.0", ANY, "Apache Commons HttpClient", "2.0-3.x", MiddlewareRole.HTTP_CLIENT,
                    false, ""),
            new ScopeRow(O + "apache-httpasyncclient-4.1", ANY, "Apache HttpAsyncClient 4", "4.1+", MiddlewareRole.HTTP_CLIENT,
                    false, ""),
            new ScopeRow(O + "netty-4.1", CLIENT, "Netty 4.1 client", "4.1.x", MiddlewareRole.HTTP_CLIENT, false, ""),
            new ScopeRow(O + "spring-webflux-5.3", CLIENT, "Spring WebClient", "5.3+ (library instrumentation)", MiddlewareRole.HTTP_CLIENT, false, ""),
            new ScopeRow(O + "okhttp-2.2", ANY, "OkHttp 2", "2.2+", MiddlewareRole.HTTP_CLIENT, false, ""),
            new ScopeRow(O + "jetty-httpclient-9.2", ANY, "Jetty HttpClient", "9.2-9.x", MiddlewareRole.HTTP_CLIENT, false, ""),
            new ScopeRow(O + "jetty-httpclient-12.0", ANY, "Jetty HttpClient", "12.0+", MiddlewareRole.HTTP_CLIENT, false, ""),
            new ScopeRow(O + "grpc-1.6", SERVER, "gRPC server", "1.6+", MiddlewareRole.SERVER, false, ""),
            // not guarded: stores
            new ScopeRow(O + "lettuce-5.0", ANY, "Lettuce", "5.0.x", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "lettuce-4.0", ANY, "Lettuce (biz.paluch.redis)", "4.0+", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "jedis-3.0", ANY, "Jedis 3", "3.x", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "jedis-1.4", ANY, "Jedis", "1.4-2.x", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "redisson-3.17", ANY, "Redisson", "3.17+", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "redisson-3.0", ANY, "Redisson", "3.0-3.16", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "rabbitmq-2.7", ANY, "RabbitMQ Java client", "2.7+", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "mongo-3.1", ANY, "MongoDB Java driver", "3.1+", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "r2dbc-1.0", ANY, "R2DBC", "1.0+", MiddlewareRole.STORE, false, ""),
            new ScopeRow(O + "aws-sdk-1.11", ANY, "AWS SDK for Java 1", "1.10.33+", MiddlewareRole.STORE, false, ""),
            // not guarded: servers
            new ScopeRow(O + "servlet-2.2", ANY, "javax.servlet container", "Servlet 2.2-2.5", MiddlewareRole.SERVER, false, ""));

    private GuardedMiddleware() {}

    /**
     * The library that recorded {@code span}, if it is a client, store or server.
     *
     * <p>A row covering its scope and kind decides. Without one, the attributes do, and the library is never guarded:
     * {@code rpc.system=aws-api} or an X-Ray {@code aws} subsegment is the AWS SDK (a store); {@code db.system} /
     * {@code db.system.name} (or any {@code db.*} / {@code sql.*} attribute, as Brave's p6spy writes {@code sql.query})
     * a database client and {@code messaging.system} (or a {@code kafka.*} attribute, Brave's, or a PRODUCER or
     * CONSUMER span) a broker client (stores); another {@code rpc.system} an RPC client; any other CLIENT span an HTTP client; a SERVER span a
     * server. Such a library is named by its system and scope, e.g. {@code redis client (io.opentelemetry.foo)}.
     * INTERNAL and unspecified spans without these attributes are no middleware: empty.
     */
    public static Optional<Library> classify(Span span) {
        for (ScopeRow r : ROWS) {
            if (r.covers(span)) {
                return Optional.of(new Library(r.library(), r.versions(), r.role(), r.guarded(), r.note()));
            }
        }
        String rpc = attr(span, "rpc.system");
        String db = !attr(span, "db.system").isEmpty() ? attr(span, "db.system") : attr(span, "db.system.name");
        if (db.isEmpty() && hasKeyPrefix(span, "db.", "sql.")) { // Brave's p6spy and older tracers: sql.query
            db = "database";
        }
        String messaging = attr(span, "messaging.system");
        if (messaging.isEmpty() && hasKeyPrefix(span, "kafka.")) { // Brave's Kafka tracing: kafka.topic, kafka.key
            messaging = "kafka";
        }
        String by = span.scope().isNone() ? "instrumentation not named" : span.scope().name();
        if (rpc.equals("aws-api") || attr(span, "xray.namespace").equals("aws")) {
            return Optional.of(unknown("AWS SDK (" + by + ")", MiddlewareRole.STORE));
        }
        if (!db.isEmpty()) {
            return Optional.of(unknown(db + " client (" + by + ")", MiddlewareRole.STORE));
        }
        if (!messaging.isEmpty() || span.kind() == SpanKind.PRODUCER || span.kind() == SpanKind.CONSUMER) {
            String system = messaging.isEmpty() ? "messaging" : messaging;
            String side = span.kind() == SpanKind.PRODUCER ? " producer" : span.kind() == SpanKind.CONSUMER ? " consumer" : "";
            return Optional.of(unknown(system + side + " client (" + by + ")", MiddlewareRole.STORE));
        }
        if (span.kind() == SpanKind.SERVER) {
            return Optional.of(unknown("server (" + by + ")", MiddlewareRole.SERVER));
        }
        if (span.kind() == SpanKind.CLIENT) {
            return Optional.of(rpc.isEmpty()
                    ? unknown("HTTP client (" + by + ")", MiddlewareRole.HTTP_CLIENT)
                    : unknown(rpc + " client (" + by + ")", MiddlewareRole.RPC_CLIENT));
        }
        return Optional.empty();
    }

    /** The system a span names: {@code db.system}, {@code db.system.name}, {@code messaging.system} or {@code rpc.system}. */
    static String system(Span span) {
        for (String key : List.of("db.system", "db.system.name", "messaging.system", "rpc.system")) {
            String v = attr(span, key);
            if (!v.isEmpty()) {
                return v;
            }
        }
        return "";
    }

    private static boolean hasKeyPrefix(Span s, String... prefixes) {
        for (String key : s.attributes().keySet()) {
            for (String p : prefixes) {
                if (key.startsWith(p)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static Library unknown(String library, MiddlewareRole role) {
        return new Library(library, "", role, false, "no row of Richter's table names this instrumentation: not guarded");
    }

    private static String attr(Span s, String key) {
        return s.attributes().getOrDefault(key, "").strip().toLowerCase(Locale.ROOT);
    }
}
