package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;

import dev.richter.agent.it.ChildJvm.Span;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import redis.clients.jedis.Jedis;

/**
 * The leak matrix of bench/isolation-leaks.sh (issue 46 item 7): for each client and store a service with no Richter
 * code runs in its own child JVM with the agent and the built extension ({@link ChildJvm}: {@link IsolationTestApp},
 * {@link StorageTestApp}, {@link LettuceTestApp}, {@link CaffeineTestApp}, {@link JdbcTestApp}, on {@code
 * richter.it.serviceJava}), makes one
 * marked call per target, and the effect is counted at the receiving side, never by the service: the real server's
 * request counter ({@link CountingServer}), the database's rows ({@code SELECT count(*)} on this JVM's own
 * connection), Redis's keys ({@code EXISTS}), the broker's end offsets ({@code Admin.listOffsets}). Each (case, target)
 * is
 * <ul>
 *   <li>{@code leaked}: a marked effect reached production (the count at the receiver rose);</li>
 *   <li>{@code isolated}: nothing reached production and the extension decided it, evidenced by its refusal message
 *       in the service's answer ({@code refused}), the mock's body ({@code mocked}) or the effect counted at the
 *       shadow ({@code shadowed});</li>
 *   <li>{@code unguarded}: nothing reached production, but only because the call failed for another reason (a
 *       connection error, a parse error of the database), not because the extension decided.</li>
 * </ul>
 * After each marked call the same call unmarked (the control) must be counted at the receiver, or the count proves
 * nothing; where no unmarked call can be counted (a closed port, a statement H2 cannot run) there is none. Prints one
 * table row per (case, target), a line per child with its span stamps, then last {@code cases=<n> leaked=<n>
 * unguarded=<n> refused=<n>}; with arguments, only the sections they name ({@code http}, {@code http-async}, {@code
 * storage}, {@code lettuce}, {@code caffeine}, {@code drivers}, {@code aws-sdk}, {@code aws}, {@code grpc}, {@code kafka-consumer}); exits 1 when a case leaked, 2 when a control was not counted (and 0 otherwise). The
 * libraries' own output goes to stderr. PostgreSQL and MariaDB cases run when they are installed ({@link
 * DatabaseServer}), else a line says why not.
 */
public final class LeakMatrix {
    private static final String REFUSED = "Richter isolation refused";
    private static final String MOCK_BODY = "{\"id\":\"ch_mock\"}";

    private final PrintStream out;
    private final List<String[]> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();
    private int leaked;
    private int unguarded;
    private int refused;
    private int controlsNotCounted;

    private LeakMatrix(PrintStream out) {
        this.out = out;
    }

    /** A call the service makes, answering its text ({@code error=...} when it failed). */
    interface Call {
        String call() throws Exception;
    }

    /** A count read at the receiving side. */
    interface Counter {
        long count() throws Exception;
    }

    public static void main(String[] args) throws Exception {
        PrintStream report = System.out;
        // Kafka's and the servers' logging goes to stderr: stdout is the report
        System.setOut(System.err);
        LeakMatrix matrix = new LeakMatrix(report);
        String java = ChildJvm.serviceJava();
        report.println("service java: " + java);
        List<String> only = List.of(args);
        try {
            if (only.isEmpty() || only.contains("http")) {
                matrix.http();
            }
            if (only.isEmpty() || only.contains("http-async")) {
                matrix.httpAsync();
            }
            if (only.isEmpty() || only.contains("storage")) {
                matrix.storage();
            }
            if (only.isEmpty() || only.contains("lettuce")) {
                matrix.lettuce();
            }
            if (only.isEmpty() || only.contains("caffeine")) {
                matrix.caffeine();
            }
            if (only.isEmpty() || only.contains("drivers")) {
                matrix.drivers();
            }
            if (only.isEmpty() || only.contains("aws-sdk")) {
                matrix.awsSdk();
            }
            if (only.isEmpty() || only.contains("aws")) {
                matrix.aws();
            }
            if (only.isEmpty() || only.contains("grpc")) {
                matrix.grpc();
            }
            if (only.isEmpty() || only.contains("kafka-consumer")) {
                matrix.kafkaConsumer();
            }
        } finally {
            matrix.print();
        }
        System.exit(matrix.leaked > 0 ? 1 : matrix.controlsNotCounted > 0 ? 2 : 0);
    }

    /**
     * One (case, target): the marked call, then its control.
     *
     * @param production the marked effects at production (rows, keys, records, requests)
     * @param shadow     the effects at the shadow, or null when the target has none
     * @param control    the same call unmarked, or null when none can be counted
     */
    private void check(String kase, String target, String expected, Call marked, Counter production, Counter shadow,
            Call control) {
        String counted;
        String result;
        String evidence;
        try {
            long p0 = production.count();
            long s0 = shadow == null ? 0 : shadow.count();
            String answer = marked.call();
            long p1 = production.count();
            long s1 = shadow == null ? 0 : shadow.count();
            counted = "production +" + (p1 - p0) + (shadow == null ? "" : ", shadow +" + (s1 - s0));
            if (answer.contains(REFUSED)) {
                evidence = "refused";
                refused++;
            } else if (answer.contains(MOCK_BODY)) {
                evidence = "mocked";
            } else if (s1 > s0) {
                evidence = "shadowed";
            } else {
                evidence = "none: " + abbreviate(answer);
            }
            if (p1 > p0) {
                result = "LEAKED";
                leaked++;
                notes.add("LEAKED " + kase + " / " + target + ": " + abbreviate(answer));
            } else if (!evidence.startsWith("none")) {
                result = "isolated";
                if (!evidence.equals(expected)) {
                    notes.add("isolated otherwise than expected: " + kase + " / " + target + ": " + evidence
                            + ", expected " + expected + ": " + abbreviate(answer));
                }
            } else {
                result = "unguarded";
                unguarded++;
            }
            if (control != null) {
                long c0 = production.count();
                String answered = control.call();
                if (production.count() <= c0) {
                    controlsNotCounted++;
                    notes.add("control not counted: " + kase + " / " + target + " unmarked: " + abbreviate(answered));
                    counted += " (control NOT counted)";
                }
            }
        } catch (Exception e) {
            counted = "-";
            result = "error";
            evidence = abbreviate(e.toString());
            controlsNotCounted++;
            notes.add("error: " + kase + " / " + target + ": " + e);
        }
        rows.add(new String[] {kase, target, expected, counted, result, evidence});
        System.err.println("leak matrix: " + String.join(" | ", rows.get(rows.size() - 1)));
    }

    private void print() {
        String format = "%-25s %-30s %-9s %-32s %-9s %s%n";
        out.printf(format, "case", "target", "expected", "counted at receiver", "result", "evidence");
        for (String[] r : rows) {
            out.printf(format, (Object[]) r);
        }
        notes.forEach(out::println);
        out.println("cases=" + rows.size() + " leaked=" + leaked + " unguarded=" + unguarded + " refused=" + refused);
    }

    /** Each HTTP client: a mocked exit, an out-of-scope host, an out-of-scope closed port; and corpus bug 43. */
    private void http() throws Exception {
        withHttpReceivers("http", (a, exit, outOfScope, closedPort, document) -> {
            for (String client : List.of("jdk", "okhttp", "apache", "spring", "urlconnection", "resttemplate", "apache4",
                    "socket", "channel")) {
                // HttpURLConnection's answer cannot be mocked: the extension refuses it (HttpUrlConnectionIsolationIT);
                // a raw Socket and a SocketChannel have no module: the network catch-all refuses them (NetworkCatchAllIT)
                String mock = List.of("jdk", "okhttp", "apache", "spring", "apache4").contains(client) ? "mocked" : "refused";
                check("http " + client, "mocked exit POST /charge", mock,
                        () -> a.call(client, exit.url("/charge"), "POST", false, MARKED), exit::count, null,
                        () -> a.call(client, exit.url("/charge"), "POST", false, null));
                check("http " + client, "out of scope GET /customers", "refused",
                        () -> a.call(client, outOfScope.url("/customers"), "GET", false, MARKED), outOfScope::count, null,
                        () -> a.call(client, outOfScope.url("/customers"), "GET", false, null));
                check("http " + client, "out of scope, closed port", "refused",
                        () -> a.call(client, "http://127.0.0.1:" + closedPort + "/customers", "GET", false, MARKED),
                        () -> 0, null, null);
            }
        });
        // corpus bug 43: java.io.tmpdir under a regular file, so it can be neither created nor written
        CountingServer outOfScope = new CountingServer(200, "production-data");
        Path notADirectory = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "tmpdir", ".file");
        ChildJvm app = null;
        try {
            app = new ChildJvm(ChildJvm.serviceJava(), List.of("-Djava.io.tmpdir=" + notADirectory.resolve("tmp"),
                    "-Drichter.isolation.file=" + document("""
                            {"mode": "enforce", "scope": [], "mocks": []}
                            """)), IsolationTestApp.class, List.of());
            ChildJvm a = app;
            check("bug 43 tmpdir unwritable", "out of scope GET /customers", "refused",
                    () -> a.call(outOfScope.url("/customers"), "GET", false, MARKED), outOfScope::count, null,
                    () -> a.call(outOfScope.url("/customers"), "GET", false, null));
            stamps("bug 43", app);
        } finally {
            ChildJvm.closeAll(app, outOfScope);
        }
    }

    /**
     * The asynchronous and reactive HTTP clients ({@link ReactiveClients}): reactor-netty's {@code HttpClient}
     * subscribed on the request's thread and on a thread without its context, Spring's {@code WebClient} ({@code
     * toEntity}, {@code bodyToMono}), Apache HttpClient 5's async client ({@code Future}, {@code FutureCallback}), and
     * a WebFlux handler's {@code WebClient} ({@link WebFluxTestApp}: on the event loop, and after a hop to another
     * thread); each to a mocked exit, an unmapped path of the exit's host, an out-of-scope host and an out-of-scope
     * closed port.
     */
    private void httpAsync() throws Exception {
        withHttpReceivers("http-async", (a, exit, outOfScope, closedPort, document) -> {
            a.warmUp("reactor-netty", "webclient", "apache-async");
            for (String client : List.of("reactor-netty", "webclient", "apache-async")) {
                for (boolean async : new boolean[] {false, true}) {
                    asyncCases("http " + client + (!async ? "" : client.equals("reactor-netty") ? " elsewhere"
                            : client.equals("webclient") ? " bodyToMono" : " callback"), a, client, async, exit,
                            outOfScope, closedPort);
                }
            }
            ChildJvm webFlux = null;
            try {
                webFlux = new ChildJvm(List.of("-Drichter.isolation.file=" + document), WebFluxTestApp.class,
                        List.of());
                webFlux.warmUp("webflux");
                for (boolean hop : new boolean[] {false, true}) {
                    asyncCases("webflux handler webclient" + (hop ? " hop" : ""), webFlux, "webflux", hop, exit,
                            outOfScope, closedPort);
                }
                stamps("http-async webflux", webFlux);
            } finally {
                ChildJvm.closeAll(webFlux);
            }
        });
    }

    /** One asynchronous client's calls ({@code async}: its second way) to the four targets of {@link #httpAsync}. */
    private void asyncCases(String kase, ChildJvm a, String client, boolean async, CountingServer exit,
                            CountingServer outOfScope, int closedPort) {
        check(kase, "mocked exit POST /charge", "mocked",
                () -> a.call(client, exit.url("/charge"), "POST", async, MARKED), exit::count, null,
                () -> a.call(client, exit.url("/charge"), "POST", async, null));
        check(kase, "exit's host GET /customers", "refused",
                () -> a.call(client, exit.url("/customers"), "GET", async, MARKED), exit::count, null,
                () -> a.call(client, exit.url("/customers"), "GET", async, null));
        check(kase, "out of scope GET /customers", "refused",
                () -> a.call(client, outOfScope.url("/customers"), "GET", async, MARKED), outOfScope::count,
                null, () -> a.call(client, outOfScope.url("/customers"), "GET", async, null));
        check(kase, "out of scope, closed port", "refused",
                () -> a.call(client, "http://127.0.0.1:" + closedPort + "/customers", "GET", async, MARKED),
                () -> 0, null, null);
    }

    /** The cases of an HTTP section, given its service, receivers and document. */
    interface HttpCases {
        void run(ChildJvm app, CountingServer exit, CountingServer outOfScope, int closedPort, Path document)
                throws Exception;
    }

    /**
     * Runs an HTTP section's cases: a mocked exit and an out-of-scope host (each a {@link CountingServer}), a closed
     * port, and the service ({@link IsolationTestApp}) with the document of {@link #mockedExitDocument}; then lists
     * the child's span stamps under {@code name}.
     */
    private void withHttpReceivers(String name, HttpCases cases) throws Exception {
        CountingServer exit = new CountingServer(200, "real-charge");
        CountingServer outOfScope = new CountingServer(200, "production-data");
        int closedPort = StorageIsolationIT.freePort();
        Path document = mockedExitDocument(exit);
        ChildJvm app = null;
        try {
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document));
            cases.run(app, exit, outOfScope, closedPort, document);
            stamps(name, app);
        } finally {
            ChildJvm.closeAll(app, exit, outOfScope);
        }
    }

    /** The HTTP sections' document: no scope, one mock answering {@code POST /charge} on {@code exit}'s port. */
    private static Path mockedExitDocument(CountingServer exit) throws Exception {
        return document("""
                {"mode": "enforce", "scope": [],
                 "mocks": [{"exit": "127.0.0.1:%d POST /charge", "status": 201, "body": "{\\"id\\":\\"ch_mock\\"}",
                            "headers": {"Content-Type": "application/json"}, "latencyMs": 0}]}
                """.formatted(exit.port()));
    }

    /** H2 (statement, prepared, HikariCP), Jedis, the Kafka producer, and corpus bug 44 on H2. */
    private void storage() throws Exception {
        DatabaseServer h2 = DatabaseServer.h2();
        int redisPort = StorageIsolationIT.freePort();
        Process redis = null;
        KafkaClusterTestKit kafka = null;
        ChildJvm app = null;
        try {
            h2.execute("shop", "CREATE TABLE visits (page VARCHAR(40))", "CREATE TABLE visits_shadow (page VARCHAR(40))",
                    "CREATE TABLE audit (what VARCHAR(40))", "CREATE TABLE orders (sku VARCHAR(40))",
                    "CREATE TABLE orders_shadow (sku VARCHAR(40))", "CREATE TABLE stock (sku VARCHAR(40), qty INT)",
                    "INSERT INTO stock VALUES ('a', 0), ('b', 0), ('c', 5)");
            h2.execute("ledger", "CREATE SCHEMA SALES", "CREATE SCHEMA SALES_SHADOW", "CREATE TABLE SALES.entries (amount INT)",
                    "CREATE TABLE SALES_SHADOW.entries (amount INT)");
            redis = StorageIsolationIT.startRedis(redisPort);
            try (Jedis j = new Jedis("127.0.0.1", redisPort)) {
                j.set("cart:d1", "keep");
                j.set("session:d2", "keep");
            }
            kafka = StorageIsolationIT.startKafka("clicks", "clicks-shadow", "payments");
            Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()));
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow"},
                                 {"kind": "table", "production": "orders", "shadow": "orders_shadow"},
                                 {"kind": "schema", "production": "SALES", "shadow": "SALES_SHADOW"},
                                 {"kind": "cache", "production": "cart:", "shadow": "shadow:cart:"},
                                 {"kind": "topic", "production": "clicks", "shadow": "clicks-shadow"}]}
                    """);
            String shop = h2.url("shop");
            String ledger = h2.url("ledger") + ";SCHEMA=SALES";
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Dapp.pool.url=" + ledger,
                    "-Dapp.hikari.url=" + ledger, "-Dapp.shop.url=" + shop, "-Dapp.held.url=" + shop,
                    "-Dapp.redis.port=" + redisPort, "-Dapp.kafka.bootstrap=" + kafka.bootstrapServers()),
                    StorageTestApp.class, List.of(org.h2.Driver.class, com.zaxxer.hikari.HikariDataSource.class,
                            Jedis.class, org.apache.commons.pool2.ObjectPool.class, KafkaProducer.class,
                            org.slf4j.LoggerFactory.class, com.google.gson.Gson.class, org.json.JSONObject.class));
            ChildJvm a = app;
            for (String how : List.of("statement", "prepared")) {
                Call insert = () -> sqlAt(a, how, shop, "INSERT INTO visits (page) VALUES ('x')", MARKED);
                check("h2 " + how, "mapped table visits", "shadowed", insert, () -> h2.count("shop", "visits"),
                        () -> h2.count("shop", "visits_shadow"),
                        () -> sqlAt(a, how, shop, "INSERT INTO visits (page) VALUES ('x')", null));
                check("h2 " + how, "qualified PUBLIC.visits", "shadowed",
                        () -> sqlAt(a, how, shop, "INSERT INTO PUBLIC.visits (page) VALUES ('x')", MARKED),
                        () -> h2.count("shop", "visits"), () -> h2.count("shop", "visits_shadow"),
                        () -> sqlAt(a, how, shop, "INSERT INTO PUBLIC.visits (page) VALUES ('x')", null));
                check("h2 " + how, "unmapped table audit", "refused",
                        () -> sqlAt(a, how, shop, "INSERT INTO audit (what) VALUES ('x')", MARKED),
                        () -> h2.count("shop", "audit"), null,
                        () -> sqlAt(a, how, shop, "INSERT INTO audit (what) VALUES ('x')", null));
            }
            check("h2 hikari", "schema SALES, entries", "shadowed",
                    () -> sqlAt(a, "hikari", "", "INSERT INTO entries VALUES (1)", MARKED),
                    () -> h2.count("ledger", "SALES.entries"), () -> h2.count("ledger", "SALES_SHADOW.entries"),
                    () -> sqlAt(a, "hikari", "", "INSERT INTO entries VALUES (1)", null));
            check("h2 hikari", "qualified SALES.entries", "shadowed",
                    () -> sqlAt(a, "hikari", "", "INSERT INTO SALES.entries VALUES (2)", MARKED),
                    () -> h2.count("ledger", "SALES.entries"), () -> h2.count("ledger", "SALES_SHADOW.entries"),
                    () -> sqlAt(a, "hikari", "", "INSERT INTO SALES.entries VALUES (2)", null));
            // H2's own pool (JdbcConnectionPool), switched the same way
            check("h2 pool", "qualified SALES.entries", "shadowed",
                    () -> sqlAt(a, "pool", "", "INSERT INTO SALES.entries VALUES (3)", MARKED),
                    () -> h2.count("ledger", "SALES.entries"), () -> h2.count("ledger", "SALES_SHADOW.entries"),
                    () -> sqlAt(a, "pool", "", "INSERT INTO SALES.entries VALUES (3)", null));
            List<String> bug44 = bug44();
            for (int i = 0; i < bug44.size(); i++) {
                String statement = bug44.get(i);
                // H2 cannot run a data-modifying WITH: the marked statement must be refused, not fail at H2
                check("bug 44 cte (h2)", "statement " + (i + 1) + ": stock unmapped", "refused",
                        () -> sqlAt(a, "statement", shop, statement, MARKED),
                        () -> 3 - h2.count("shop", "stock") + h2.count("shop", "orders"), null, null);
            }
            check("redis jedis", "SET cart:1 (mapped)", "shadowed", () -> redisAt(a, "set", "cart:1", MARKED),
                    () -> keys(redisPort, "cart:1"), () -> keys(redisPort, "shadow:cart:1"),
                    () -> redisAt(a, "set", "cart:1", null));
            check("redis jedis", "SET session:9 (unmapped)", "refused", () -> redisAt(a, "set", "session:9", MARKED),
                    () -> keys(redisPort, "session:9"), null, () -> redisAt(a, "set", "session:9", null));
            check("redis jedis", "MSET cart:2 session:10", "refused",
                    () -> redisAt(a, "mset", "cart:2,session:10", MARKED),
                    () -> keys(redisPort, "cart:2", "session:10"), () -> keys(redisPort, "shadow:cart:2"),
                    () -> redisAt(a, "mset", "cart:2,session:10", null));
            // a value equal to a key's name: MSET cart:5 cart:6 cart:6 cart:6, keys at 1 and 3 by MSET's key
            // specification; located by matching values, the value at 2 would be taken for the key cart:6
            check("redis jedis", "MSET cart:5 cart:6, values cart:6", "shadowed",
                    () -> redisAt(a, "mset", "cart:5,cart:6", "cart:6", MARKED),
                    () -> keys(redisPort, "cart:5", "cart:6"), () -> keys(redisPort, "shadow:cart:5", "shadow:cart:6"),
                    () -> redisAt(a, "mset", "cart:5,cart:6", "cart:6", null));
            check("redis jedis", "DEL cart:d1 session:d2", "refused",
                    () -> redisAt(a, "del", "cart:d1,session:d2", MARKED),
                    () -> 2 - keys(redisPort, "cart:d1", "session:d2"), null,
                    () -> redisAt(a, "del", "cart:d1,session:d2", null));
            check("kafka producer", "topic clicks (mapped)", "shadowed", () -> kafkaAt(a, "clicks", MARKED),
                    () -> endOffset(admin, "clicks"), () -> endOffset(admin, "clicks-shadow"),
                    () -> kafkaAt(a, "clicks", null));
            check("kafka producer", "topic payments (unmapped)", "refused", () -> kafkaAt(a, "payments", MARKED),
                    () -> endOffset(admin, "payments"), null, () -> kafkaAt(a, "payments", null));
            admin.close();
            stamps("storage", app);
        } finally {
            ChildJvm.closeAll(app);
            if (redis != null) {
                redis.destroyForcibly();
            }
            ChildJvm.closeAll(h2);
            try {
                if (kafka != null) {
                    kafka.close();
                }
            } catch (Exception e) {
                // the JVM ends anyway
            }
        }
    }

    /**
     * The AWS SDK v2's DynamoDB client ({@link AwsSdkTestApp}, url-connection-client) to the local stack's dynalite
     * ({@link Dynalite}), counted by this JVM's unmarked {@code Scan}: a {@code PutItem} and a {@code BatchWriteItem} to
     * a mapped table, a {@code PutItem} to an unmapped one. Not run without {@code node} (a line says so).
     */
    private void awsSdk() throws Exception {
        if (!Dynalite.nodeAvailable()) {
            notes.add("aws sdk dynamodb: not run, node is not installed (dynalite)");
            return;
        }
        Dynalite dynamo = null;
        ChildJvm app = null;
        try {
            dynamo = new Dynalite();
            dynamo.createTables(List.of("carts", "carts_shadow", "ledger"));
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "shadows": [{"kind": "dynamodb", "production": "carts", "shadow": "carts_shadow"}]}
                    """);
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document,
                    "-Dapp.dynamodb.endpoint=" + dynamo.endpoint()), AwsSdkTestApp.class,
                    List.of(software.amazon.awssdk.services.dynamodb.DynamoDbClient.class,
                            io.opentelemetry.api.baggage.Baggage.class, io.opentelemetry.context.Context.class,
                            io.opentelemetry.common.ComponentLoader.class));
            ChildJvm a = app;
            Dynalite d = dynamo;
            int[] id = {0};
            for (String op : List.of("put", "batch")) {
                check("aws sdk dynamodb " + op, "table carts (mapped)", "shadowed",
                        () -> dynamoAt(a, op, "carts", "m" + id[0]++, MARKED), () -> d.count("carts"),
                        () -> d.count("carts_shadow"), () -> dynamoAt(a, op, "carts", "u" + id[0]++, null));
            }
            check("aws sdk dynamodb put", "table ledger (unmapped)", "refused",
                    () -> dynamoAt(a, "put", "ledger", "m" + id[0]++, MARKED), () -> d.count("ledger"), null,
                    () -> dynamoAt(a, "put", "ledger", "u" + id[0]++, null));
            stamps("aws sdk", app);
        } finally {
            ChildJvm.closeAll(app, dynamo);
        }
    }

    /**
     * grpc-java 1.76.0 over grpc-netty-shaded ({@link GrpcTestApp}), blocking and future unary calls, counted by the
     * real servers ({@link GrpcStock.Counting}): a mocked method (its mock's message is {@link #MOCK_BODY}), an unmocked
     * method of a server out of scope, and a closed port out of scope.
     */
    private void grpc() throws Exception {
        GrpcStock.Counting payments = new GrpcStock.Counting();
        int closedPort = StorageIsolationIT.freePort();
        ChildJvm app = null;
        try {
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "grpcMocks": [{"method": "test.Stock/Reserve", "authority": "%s", "response": "%s"}]}
                    """.formatted(payments.target(), GrpcStock.base64(MOCK_BODY)));
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document), GrpcTestApp.class,
                    GrpcStock.CLIENT_LIBRARIES);
            ChildJvm a = app;
            String closed = "127.0.0.1:" + closedPort;
            for (String how : List.of("blocking", "future")) {
                check("grpc " + how, "mocked method Reserve", "mocked",
                        () -> GrpcIsolationIT.grpc(a, payments.target(), "test.Stock/Reserve", how, MARKED),
                        payments::count, null,
                        () -> GrpcIsolationIT.grpc(a, payments.target(), "test.Stock/Reserve", how, null));
                check("grpc " + how, "out of scope test.Stock/Get", "refused",
                        () -> GrpcIsolationIT.grpc(a, payments.target(), "test.Stock/Get", how, MARKED),
                        payments::count, null,
                        () -> GrpcIsolationIT.grpc(a, payments.target(), "test.Stock/Get", how, null));
                check("grpc " + how, "out of scope, closed port", "refused",
                        () -> GrpcIsolationIT.grpc(a, closed, "test.Stock/Get", how, MARKED), () -> 0, null, null);
            }
            stamps("grpc", app);
        } finally {
            ChildJvm.closeAll(app, payments);
        }
    }

    /**
     * The AWS SDK v2's other shadowed services ({@link AwsSdkTestApp}'s {@code /aws}, url-connection-client), each
     * counted at its receiver in this JVM: SQS at ElasticMQ (the queue's messages), S3 at S3Proxy (the blob store's
     * objects; a delete counted as the object gone, so a shadow copy of it is put first), SNS, EventBridge and Kinesis
     * at {@link AwsRecorder} (what reached each topic, bus and stream). Mapped targets (a queue, a bucket, a key
     * prefix, a topic, the default bus, a stream) and unmapped ones.
     */
    private void aws() throws Exception {
        ElasticMq sqs = null;
        S3ProxyServer s3 = null;
        AwsRecorder recorder = null;
        ChildJvm app = null;
        try {
            sqs = new ElasticMq(List.of("payments", "payments-shadow", "audit"));
            s3 = new S3ProxyServer(List.of("uploads", "uploads-shadow", "media"));
            recorder = new AwsRecorder();
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "shadows": [{"kind": "queue", "production": "payments", "shadow": "payments-shadow"},
                                 {"kind": "s3", "production": "uploads", "shadow": "uploads-shadow"},
                                 {"kind": "s3", "production": "media/invoices/", "shadow": "media/shadow/invoices/"},
                                 {"kind": "sns-topic", "production": "orders", "shadow": "orders-shadow"},
                                 {"kind": "event-bus", "production": "default", "shadow": "shop-shadow"},
                                 {"kind": "kinesis-stream", "production": "clicks", "shadow": "clicks-shadow"}]}
                    """);
            app = new ChildJvm(AwsServicesIsolationIT.flags(document, sqs, s3, recorder), AwsSdkTestApp.class,
                    AwsServicesIsolationIT.libraries());
            ChildJvm a = app;
            ElasticMq q = sqs;
            S3ProxyServer b = s3;
            AwsRecorder r = recorder;
            for (String op : List.of("send", "batch")) {
                check("aws sqs " + op, "queue payments (mapped)", "shadowed",
                        () -> awsAt(a, "sqs", op, "payments", MARKED), () -> q.count("payments"),
                        () -> q.count("payments-shadow"), () -> awsAt(a, "sqs", op, "payments", null));
            }
            check("aws sqs send", "queue audit (unmapped)", "refused", () -> awsAt(a, "sqs", "send", "audit", MARKED),
                    () -> q.count("audit"), null, () -> awsAt(a, "sqs", "send", "audit", null));
            for (String op : List.of("put", "multipart")) {
                check("aws s3 " + op, "bucket uploads (mapped)", "shadowed",
                        () -> awsAt(a, "s3", op, "uploads/" + op, MARKED), () -> b.count("uploads", op),
                        () -> b.count("uploads-shadow", op), () -> awsAt(a, "s3", op, "uploads/" + op, null));
            }
            check("aws s3 copy", "uploads/copy from uploads/put", "shadowed",
                    () -> aws(a, "s3", "copy", "uploads/copy", "uploads/put", MARKED), () -> b.count("uploads", "copy"),
                    () -> b.count("uploads-shadow", "copy"),
                    () -> aws(a, "s3", "copy", "uploads/copy", "uploads/put", null));
            check("aws s3 put", "prefix media/invoices/ (mapped)", "shadowed",
                    () -> awsAt(a, "s3", "put", "media/invoices/1", MARKED), () -> b.count("media", "invoices/"),
                    () -> b.count("media", "shadow/invoices/"), () -> awsAt(a, "s3", "put", "media/invoices/1", null));
            check("aws s3 put", "media/other/ (unmapped)", "refused", () -> awsAt(a, "s3", "put", "media/other/1", MARKED),
                    () -> b.count("media", "other/"), null, () -> awsAt(a, "s3", "put", "media/other/1", null));
            for (String op : List.of("delete", "deletes")) {
                String key = "kept/" + op + "/x";
                b.put("uploads", key, "production");
                b.put("uploads-shadow", key, "shadow");
                check("aws s3 " + op, "uploads/" + key + " (mapped)", "shadowed",
                        () -> awsAt(a, "s3", op, "uploads/" + key, MARKED), () -> 1 - b.count("uploads", key),
                        () -> 1 - b.count("uploads-shadow", key), () -> awsAt(a, "s3", op, "uploads/" + key, null));
                String other = "other/" + op + "/x";
                b.put("media", other, "production");
                check("aws s3 " + op, "media/" + other + " (unmapped)", "refused",
                        () -> awsAt(a, "s3", op, "media/" + other, MARKED), () -> 1 - b.count("media", other),
                        null, () -> awsAt(a, "s3", op, "media/" + other, null));
            }
            String topics = AwsServicesIsolationIT.TOPICS;
            for (String op : List.of("publish", "batch")) {
                check("aws sns " + op, "topic orders (mapped)", "shadowed",
                        () -> awsAt(a, "sns", op, topics + "orders", MARKED), () -> r.count("sns:" + topics + "orders"),
                        () -> r.count("sns:" + topics + "orders-shadow"),
                        () -> awsAt(a, "sns", op, topics + "orders", null));
            }
            check("aws sns publish", "topic audit (unmapped)", "refused",
                    () -> awsAt(a, "sns", "publish", topics + "audit", MARKED), () -> r.count("sns:" + topics + "audit"),
                    null, () -> awsAt(a, "sns", "publish", topics + "audit", null));
            check("aws eventbridge put", "default bus (mapped)", "shadowed", () -> awsAt(a, "events", "put", "", MARKED),
                    () -> r.count("events:default"), () -> r.count("events:shop-shadow"),
                    () -> awsAt(a, "events", "put", "", null));
            check("aws eventbridge put", "bus billing (unmapped)", "refused",
                    () -> awsAt(a, "events", "put", "billing", MARKED), () -> r.count("events:billing"), null,
                    () -> awsAt(a, "events", "put", "billing", null));
            for (String op : List.of("put", "batch")) {
                check("aws kinesis " + op, "stream clicks (mapped)", "shadowed",
                        () -> awsAt(a, "kinesis", op, "clicks", MARKED), () -> r.count("kinesis:clicks"),
                        () -> r.count("kinesis:clicks-shadow"), () -> awsAt(a, "kinesis", op, "clicks", null));
            }
            check("aws kinesis put", "stream views (unmapped)", "refused",
                    () -> awsAt(a, "kinesis", "put", "views", MARKED), () -> r.count("kinesis:views"), null,
                    () -> awsAt(a, "kinesis", "put", "views", null));
            stamps("aws", app);
        } finally {
            ChildJvm.closeAll(app, sqs, s3, recorder);
        }
    }

    private static String awsAt(ChildJvm app, String service, String op, String target, String baggage)
            throws Exception {
        return aws(app, service, op, target, "leak", baggage);
    }

    private static String aws(ChildJvm app, String service, String op, String target, String id, String baggage)
            throws Exception {
        return AwsServicesIsolationIT.aws(app, service, op, target, id, baggage);
    }

    private static String dynamoAt(ChildJvm app, String op, String table, String id, String baggage) throws Exception {
        return app.get("/dynamodb?op=" + op + "&table=" + enc(table) + "&id=" + enc(id), baggage).body();
    }

    /**
     * Lettuce 6.6 ({@link LettuceTestApp}, Netty's NIO transport, the network catch-all on): its sync, async and
     * reactive APIs, the reactive one subscribed where the request's context is not current, and Spring Data Redis's
     * {@code StringRedisTemplate} and {@code ReactiveStringRedisTemplate}, each with a mapped key, an unmapped one, an
     * MSET with one unmapped key, an MSET whose values are its keys' names and a DEL with one unmapped key.
     */
    private void lettuce() throws Exception {
        int redisPort = StorageIsolationIT.freePort();
        Process redis = null;
        ChildJvm app = null;
        try {
            redis = StorageIsolationIT.startRedis(redisPort);
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "shadows": [{"kind": "cache", "production": "cart:", "shadow": "shadow:cart:"}]}
                    """);
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Dapp.redis.port=" + redisPort,
                    "-Dio.lettuce.core.epoll=false"), LettuceTestApp.class, List.of());
            ChildJvm a = app;
            for (String api : List.of("sync", "async", "reactive", "elsewhere", "template", "reactive-template")) {
                String kase = "redis lettuce " + api;
                String c = "cart:" + api + ":";
                check(kase, "SET cart:1 (mapped)", "shadowed", () -> lettuceAt(a, api, "set", c + "1", "v", MARKED),
                        () -> keys(redisPort, c + "1"), () -> keys(redisPort, "shadow:" + c + "1"),
                        () -> lettuceAt(a, api, "set", c + "1", "v", null));
                check(kase, "SET session:9 (unmapped)", "refused",
                        () -> lettuceAt(a, api, "set", "session:" + api + ":9", "v", MARKED),
                        () -> keys(redisPort, "session:" + api + ":9"), null,
                        () -> lettuceAt(a, api, "set", "session:" + api + ":9", "v", null));
                check(kase, "MSET cart:2 session:10", "refused",
                        () -> lettuceAt(a, api, "mset", c + "2,session:" + api + ":10", "v", MARKED),
                        () -> keys(redisPort, c + "2", "session:" + api + ":10"), () -> keys(redisPort, "shadow:" + c + "2"),
                        () -> lettuceAt(a, api, "mset", c + "2,session:" + api + ":10", "v", null));
                // a value equal to a key's name: keys at MSET's key specification's positions only
                check(kase, "MSET cart:5 cart:6, values cart:6", "shadowed",
                        () -> lettuceAt(a, api, "mset", c + "5," + c + "6", c + "6", MARKED),
                        () -> keys(redisPort, c + "5", c + "6"), () -> keys(redisPort, "shadow:" + c + "5", "shadow:" + c + "6"),
                        () -> lettuceAt(a, api, "mset", c + "5," + c + "6", c + "6", null));
                try (Jedis j = new Jedis("127.0.0.1", redisPort)) {
                    j.set(c + "d1", "keep");
                    j.set("session:" + api + ":d2", "keep");
                }
                check(kase, "DEL cart:d1 session:d2", "refused",
                        () -> lettuceAt(a, api, "del", c + "d1,session:" + api + ":d2", "", MARKED),
                        () -> 2 - keys(redisPort, c + "d1", "session:" + api + ":d2"), null,
                        () -> lettuceAt(a, api, "del", c + "d1,session:" + api + ":d2", "", null));
            }
            stamps("lettuce", app);
        } finally {
            ChildJvm.closeAll(app);
            if (redis != null) {
                redis.destroyForcibly();
            }
        }
    }

    /** HSQLDB, and PostgreSQL and MariaDB when installed, through {@link JdbcTestApp}; corpus bug 44 on PostgreSQL. */
    private void drivers() throws Exception {
        List<DatabaseServer> servers = new ArrayList<>();
        ChildJvm app = null;
        try {
            servers.add(DatabaseServer.hsqldb(JdbcDriverIsolation.DATABASES));
            DatabaseServer.postgresqlMissing().ifPresentOrElse(why -> notes.add("not run: " + why),
                    () -> servers.add(start(() -> DatabaseServer.postgresql(JdbcDriverIsolation.DATABASES))));
            DatabaseServer.mariadbMissing().ifPresentOrElse(why -> notes.add("not run: " + why),
                    () -> servers.add(start(() -> DatabaseServer.mariadb(JdbcDriverIsolation.DATABASES))));
            for (DatabaseServer db : servers) {
                JdbcDriverIsolation.createTables(db);
                db.execute("shop", "CREATE TABLE orders (sku VARCHAR(40))", "CREATE TABLE orders_shadow (sku VARCHAR(40))",
                        "CREATE TABLE stock (sku VARCHAR(40), qty INT)", "INSERT INTO stock VALUES ('a', 0), ('b', 0), ('c', 5)");
            }
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": [],
                     "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow"},
                                 {"kind": "table", "production": "orders", "shadow": "orders_shadow"},
                                 {"kind": "schema", "production": "billing", "shadow": "billing_shadow"}]}
                    """);
            app = new ChildJvm(List.of("-Drichter.isolation.file=" + document), JdbcTestApp.class,
                    List.of(org.hsqldb.jdbc.JDBCDriver.class, org.postgresql.Driver.class, org.mariadb.jdbc.Driver.class));
            ChildJvm a = app;
            for (DatabaseServer db : servers) {
                String name = db.kind.split(" ")[0].toLowerCase();
                for (String how : List.of("statement", "prepared")) {
                    check(name + " " + how, "mapped table visits", "shadowed",
                            () -> sql(a, db, how, "shop", "INSERT INTO visits (page) VALUES ('x')", MARKED),
                            () -> db.count("shop", "visits"), () -> db.count("shop", "visits_shadow"),
                            () -> sql(a, db, how, "shop", "INSERT INTO visits (page) VALUES ('x')", null));
                }
                String qualified = switch (name) {
                    case "hsqldb" -> "PUBLIC.visits";
                    case "postgresql" -> "public.visits";
                    default -> "shop.visits";
                };
                check(name + " statement", "qualified " + qualified, "shadowed",
                        () -> sql(a, db, "statement", "shop", "INSERT INTO " + qualified + " (page) VALUES ('x')", MARKED),
                        () -> db.count("shop", "visits"), () -> db.count("shop", "visits_shadow"),
                        () -> sql(a, db, "statement", "shop", "INSERT INTO " + qualified + " (page) VALUES ('x')", null));
                check(name + " statement", "unmapped table audit", "refused",
                        () -> sql(a, db, "statement", "shop", "INSERT INTO audit (what) VALUES ('x')", MARKED),
                        () -> db.count("shop", "audit"), null,
                        () -> sql(a, db, "statement", "shop", "INSERT INTO audit (what) VALUES ('x')", null));
                check(name + " statement", "database billing (by URL)", "shadowed",
                        () -> sql(a, db, "statement", "billing", "INSERT INTO invoices VALUES (1)", MARKED),
                        () -> db.count("billing", "invoices"), () -> db.count("billing_shadow", "invoices"),
                        () -> sql(a, db, "statement", "billing", "INSERT INTO invoices VALUES (1)", null));
                if (name.equals("mariadb")) {
                    // a MariaDB connection reaches every database of its server: the production one, named, is
                    // requalified to its shadow, from the shadow database's connection and from another's
                    check(name + " statement", "qualified billing.invoices", "shadowed",
                            () -> sql(a, db, "statement", "billing", "INSERT INTO billing.invoices VALUES (2)", MARKED),
                            () -> db.count("billing", "invoices"), () -> db.count("billing_shadow", "invoices"),
                            () -> sql(a, db, "statement", "billing", "INSERT INTO billing.invoices VALUES (2)", null));
                    check(name + " statement", "billing.invoices from shop", "shadowed",
                            () -> sql(a, db, "statement", "shop", "INSERT INTO billing.invoices VALUES (3)", MARKED),
                            () -> db.count("billing", "invoices"), () -> db.count("billing_shadow", "invoices"),
                            () -> sql(a, db, "statement", "shop", "INSERT INTO billing.invoices VALUES (3)", null));
                }
                if (name.equals("postgresql")) {
                    List<String> bug44 = bug44();
                    for (int i = 0; i < bug44.size(); i++) {
                        String statement = bug44.get(i);
                        check("bug 44 cte (postgresql)", "statement " + (i + 1) + ": stock unmapped", "refused",
                                () -> sql(a, db, "statement", "shop", statement, MARKED),
                                () -> 3 - db.count("shop", "stock") + db.count("shop", "orders"), null,
                                // the control: the statement really writes stock (and orders) on PostgreSQL
                                () -> sql(a, db, "statement", "shop", statement, null));
                        db.execute("shop", "DELETE FROM stock", "DELETE FROM orders",
                                "INSERT INTO stock VALUES ('a', 0), ('b', 0), ('c', 5)");
                    }
                }
            }
            if (servers.stream().noneMatch(s -> s.kind.startsWith("PostgreSQL"))) {
                notes.add("bug 44 on PostgreSQL not run: PostgreSQL is not installed (run on H2 only)");
            }
            stamps("drivers", app);
        } finally {
            ChildJvm.closeAll(app);
            ChildJvm.closeAll(servers.toArray(new AutoCloseable[0]));
        }
    }

    /**
     * Kafka's consumer side ({@link KafkaConsumerFixture}: {@link KafkaConsumerTestApp}'s plain poll loop and
     * {@code @KafkaListener} on kafka-clients 3.9.1 and spring-kafka 3.3.10, topic {@code orders} shadowed by {@code
     * orders-shadow}, markers signed): for each consumer a signed record on the shadow topic, a signed one on the
     * production topic, a forged one and an unmarked one on the shadow topic. Production is the consumer's payment
     * exit (its charges), or the production group's committed offsets; the shadow is the shadow group's committed
     * offsets ({@code Admin.listConsumerGroupOffsets}); the control is an unmarked record on the production topic,
     * counted at the exit or at the production group's offsets.
     */
    private void kafkaConsumer() throws Exception {
        try (KafkaConsumerFixture world = new KafkaConsumerFixture()) {
            String marked = KafkaConsumerFixture.signedMarker();
            int[] n = {0};
            for (String by : world.consumers) {
                String kase = "kafka consumer " + (by.equals("loop") ? "poll loop" : "@KafkaListener");
                String group = KafkaConsumerFixture.group(by);
                String shadowGroup = group + KafkaConsumerFixture.SHADOW_GROUP_SUFFIX;
                CountingServer exit = world.exits.get(by);
                Counter shadow = () -> world.committed(shadowGroup, "orders-shadow");
                Call control = () -> world.deliver("orders", "c" + n[0], "c" + n[0]++, null, by);
                check(kase, "marked, shadow topic", "mocked",
                        () -> world.deliver("orders-shadow", "m" + n[0], "m" + n[0]++, marked, by), exit::count, shadow,
                        control);
                check(kase, "marked, production topic", "mocked",
                        () -> world.deliver("orders", "p" + n[0], "p" + n[0]++, marked, by), exit::count, null, control);
                check(kase, "forged marker, shadow topic", "shadowed",
                        () -> world.deliverUnaccepted("f" + n[0]++, KafkaConsumerFixture.forgedMarker(), by),
                        exit::count, shadow, control);
                check(kase, "no marker, shadow topic", "shadowed",
                        () -> world.deliverUnaccepted("n" + n[0]++, null, by), exit::count, shadow, control);
                check(kase, "production group's offsets", "mocked",
                        () -> world.deliver("orders-shadow", "o" + n[0], "o" + n[0]++, marked, by),
                        () -> world.committed(group, "orders-shadow") + world.committed(group, "orders"), shadow,
                        control);
            }
            stamps("kafka-consumer", world.app);
        }
    }

    /** A server start that cannot happen is a note, not the end of the matrix. */
    private DatabaseServer start(java.util.concurrent.Callable<DatabaseServer> start) {
        try {
            return start.call();
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The spans the child exported: how many carry each of the extension's stamps. */
    private void stamps(String name, ChildJvm app) throws Exception {
        List<Span> spans = app.stopAndReadSpans();
        long active = spans.stream().filter(s -> "true".equals(s.attributes().get("richter.isolation.active"))).count();
        long proven = spans.stream().filter(s -> s.attributes().containsKey("richter.isolation.active")).count();
        notes.add("spans of " + name + ": " + spans.size() + ", marked " + proven + " (isolation.active=true " + active
                + "), richter.refused " + count(spans, "richter.refused") + ", richter.mock "
                + count(spans, "richter.mock") + ", richter.shadow.target " + count(spans, "richter.shadow.target"));
    }

    private static long count(List<Span> spans, String attribute) {
        return spans.stream().filter(s -> s.attributes().containsKey(attribute)).count();
    }

    /** The two statements of corpus bug 44 (../shared/corpus/bugs/44-sql-data-modifying-cte.sql). */
    private static List<String> bug44() {
        return List.of("WITH moved AS (DELETE FROM stock WHERE qty = 0 RETURNING sku) SELECT sku FROM moved",
                "WITH moved AS (DELETE FROM stock WHERE qty = 0 RETURNING sku) INSERT INTO orders (sku) SELECT sku FROM moved");
    }

    private static Path document(String json) throws Exception {
        return Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "isolation",
                ".json"), json);
    }

    private static String sqlAt(ChildJvm app, String how, String url, String sql, String baggage) throws Exception {
        return app.get("/sql?how=" + how + "&url=" + enc(url) + "&sql=" + enc(sql), baggage).body();
    }

    private static String sql(ChildJvm app, DatabaseServer db, String how, String database, String sql, String baggage)
            throws Exception {
        return app.get("/sql?how=" + how + "&url=" + enc(db.url(database)) + "&user=" + enc(db.user) + "&password="
                + enc(db.password) + "&sql=" + enc(sql), baggage).body();
    }

    private static String redisAt(ChildJvm app, String op, String keys, String baggage) throws Exception {
        return redisAt(app, op, keys, "v", baggage);
    }

    private static String redisAt(ChildJvm app, String op, String keys, String value, String baggage) throws Exception {
        return app.get("/redis?op=" + op + "&key=" + enc(keys) + "&value=" + enc(value), baggage).body();
    }

    /**
     * Caffeine 3 and Spring's {@code ConcurrentMapCache} (in-process: the receiving side is the cache itself, so the
     * count is what an unmarked caller of the service is answered): a marked put, and a marked get whose mapping
     * function computes the value, each through {@code Cache}, {@code AsyncCache}, an unbounded {@code Cache} and
     * {@code ConcurrentMapCache}, and a {@code LoadingCache}'s loader. Production
     * counts 1 when an unmarked {@code getIfPresent} of the key answers the marked value, the shadow 1 when a marked
     * one does; the control is the same call unmarked.
     */
    private void caffeine() throws Exception {
        ChildJvm app = null;
        try {
            Path document = document("""
                    {"mode": "enforce", "scope": [], "mocks": []}
                    """);
            app = new ChildJvm(ChildJvm.serviceJava(), List.of("-Drichter.isolation.file=" + document),
                    CaffeineTestApp.class, List.of(), List.of(com.github.benmanes.caffeine.cache.Caffeine.class));
            ChildJvm a = app;
            for (String cache : List.of("manual", "async", "unbounded", "spring")) {
                String kase = cache.equals("spring") ? "spring ConcurrentMapCache" : "caffeine " + cache;
                for (String op : List.of("put", "get")) {
                    String key = "leak:" + op;
                    check(kase, op.toUpperCase(java.util.Locale.ROOT) + " " + key, "shadowed",
                            () -> caffeineAt(a, cache, op, key, "v", MARKED), () -> answers(a, cache, key, "v", null),
                            () -> answers(a, cache, key, "v", MARKED), () -> caffeineAt(a, cache, op, key, "v", null));
                }
            }
            check("caffeine loading", "GET leak:load (loader)", "shadowed",
                    () -> caffeineAt(a, "loading", "get", "leak:load", "", MARKED),
                    () -> answers(a, "loading", "leak:load", "loaded#1", null),
                    () -> answers(a, "loading", "leak:load", "loaded#1", MARKED), null);
        } finally {
            ChildJvm.closeAll(app);
        }
    }

    private static String caffeineAt(ChildJvm app, String cache, String op, String key, String value, String baggage)
            throws Exception {
        return app.get("/cache?cache=" + cache + "&op=" + op + "&key=" + enc(key) + "&value=" + enc(value), baggage)
                .body();
    }

    /** 1 when a {@code getIfPresent} of {@code key} (marked when {@code baggage} is) answers {@code value}, else 0. */
    private static long answers(ChildJvm app, String cache, String key, String value, String baggage) throws Exception {
        return caffeineAt(app, cache, "getIfPresent", key, "", baggage).startsWith("value=" + value + ";") ? 1 : 0;
    }

    private static String lettuceAt(ChildJvm app, String api, String op, String keys, String value, String baggage)
            throws Exception {
        return app.get("/lettuce?api=" + api + "&op=" + op + "&key=" + enc(keys) + "&value=" + enc(value), baggage)
                .body();
    }

    private static String kafkaAt(ChildJvm app, String topic, String baggage) throws Exception {
        return app.get("/kafka?topic=" + enc(topic) + "&value=v", baggage).body();
    }

    /** How many of {@code keys} exist (Redis EXISTS, this JVM's own connection). */
    private static long keys(int port, String... keys) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            return j.exists(keys);
        }
    }

    private static long endOffset(Admin admin, String topic) throws Exception {
        TopicPartition p = new TopicPartition(topic, 0);
        return admin.listOffsets(Map.of(p, OffsetSpec.latest())).all().get(10, TimeUnit.SECONDS).get(p).offset();
    }

    private static String abbreviate(String s) {
        String line = s.replace('\n', ' ');
        return line.length() > 110 ? line.substring(0, 110) + "..." : line;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
