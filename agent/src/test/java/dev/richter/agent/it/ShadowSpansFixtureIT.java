package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariDataSource;
import dev.richter.agent.it.ChildJvm.Span;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;

/**
 * Captures real agent output for the shadow-writes check and the datastore discovery (functions/checks and libs/links
 * test resources {@code shadow-spans/*.otlp.json}): {@link StorageTestApp} in two child JVMs ({@link ChildJvm}: the
 * OpenTelemetry agent 2.22.0, {@code logging-otlp}), each with the contrib baggage span processor as a second
 * extension ({@code copy-from-baggage.include=*}), so the marker {@code richter-loadtest=1} is an attribute of every
 * span of a marked request, as on a team's services.
 * <ul>
 *   <li>{@code shop} (old database semconv, the agent's default): Richter's extension routes marked calls to the
 *       shadows of its document (enforce, then report mode) and stamps {@code richter.shadow.target},
 *       {@code richter.refused}, {@code richter.would_refuse};</li>
 *   <li>{@code inventory} ({@code otel.semconv-stability.opt-in=database}: {@code db.namespace},
 *       {@code db.query.text}, ...): the extension's storage modules disabled ({@code
 *       otel.instrumentation.richter-jdbc.enabled=false}, jedis, kafka-producer), so marked calls reach production
 *       as on a service that forgot the extension; one unmarked call reads the shadow table.</li>
 * </ul>
 * Writes {@code target/shadow-spans/<service>.otlp.json} ({@code {"resourceSpans": [...]}}, the lines the exporter
 * wrote, merged in order). Run {@code mvn -B verify -pl agent -Dit.test=ShadowSpansFixtureIT -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false}, then copy both files into the test resources.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShadowSpansFixtureIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** H2 accepts it (INSERT ... DIRECT query), JSqlParser 5.3 does not; it names two tables, so the agent records none. */
    private static final String UNPARSABLE = "INSERT INTO visits (page) DIRECT SELECT name FROM customers";
    private Server h2;
    private Process redisServer;
    private int redisPort;
    private KafkaClusterTestKit kafka;
    private String base;

    @BeforeAll
    void start() throws Exception {
        h2 = Server.createTcpServer("-tcpPort", String.valueOf(StorageIsolationIT.freePort()), "-ifNotExists").start();
        base = "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/mem:";
        // the in-memory databases are the test JVM's, shared with StorageIsolationIT's of the same names: start empty
        for (String db : List.of("shop", "ledger", "billing")) {
            sql(db, "DROP ALL OBJECTS");
        }
        sql("shop", "CREATE TABLE visits (page VARCHAR(40))", "CREATE TABLE visits_shadow (page VARCHAR(40))",
                "CREATE TABLE audit (what VARCHAR(40))", "CREATE TABLE customers (name VARCHAR(40))",
                "INSERT INTO customers VALUES ('Ada')");
        sql("ledger", "CREATE SCHEMA SALES", "CREATE SCHEMA SALES_SHADOW", "CREATE TABLE SALES.entries (amount INT)",
                "CREATE TABLE SALES_SHADOW.entries (amount INT)");
        sql("billing", "CREATE TABLE invoices (amount INT)");
        redisPort = StorageIsolationIT.freePort();
        redisServer = StorageIsolationIT.startRedis(redisPort);
        try (Jedis jedis = new Jedis("127.0.0.1", redisPort)) {
            jedis.set("config:flag", "on");
        }
        kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true).setNumBrokerNodes(1)
                .setNumControllerNodes(1).build()).build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1), new NewTopic("orders-shadow", 1, (short) 1),
                    new NewTopic("payments", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(() -> {
            if (redisServer != null) {
                redisServer.destroyForcibly();
            }
        }, () -> {
            if (h2 != null) {
                h2.stop();
            }
        }, kafka);
    }

    @Test
    void shopWithTheExtensionRoutesRefusesAndReportsAndStampsItOnTheSpans() throws Exception {
        Path document = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "shadows", ".json");
        Files.writeString(document, document("enforce"));
        List<Span> spans;
        try (ChildJvm app = child("shop", document, List.of())) {
            sqlAt(app, "statement", "shop", "INSERT INTO visits (page) VALUES ('m1')", MARKED);
            sqlAt(app, "prepared", "shop", "INSERT INTO visits (page) VALUES ('m2')", MARKED);
            sqlAt(app, "statement", "shop", "SELECT COUNT(*) FROM visits", MARKED);
            sqlAt(app, "prepared", "shop", "SELECT name FROM customers", MARKED);
            sqlAt(app, "statement", "shop", "SELECT v.page FROM visits v JOIN customers c ON v.page = c.name", MARKED);
            sqlAt(app, "statement", "shop", "INSERT INTO audit (what) VALUES ('marked')", MARKED);
            sqlAt(app, "statement", "shop", UNPARSABLE, MARKED);
            sqlAt(app, "statement", "shop", "INSERT INTO visits (page) VALUES ('u1')", null);
            app.get("/sql?how=hikari&sql=" + enc("INSERT INTO entries VALUES (5)"), MARKED);
            redis(app, "set", "stock:A1", "7", MARKED);
            redis(app, "get", "stock:A1", "", MARKED);
            redis(app, "get", "config:flag", "", MARKED);
            redis(app, "set", "session:9", "x", MARKED);
            redis(app, "set", "stock:A1", "100", null);
            kafka(app, "orders", "m1", MARKED);
            kafka(app, "payments", "m2", MARKED);
            kafka(app, "orders", "u1", null);
            Files.writeString(document, document("report"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (sqlAt(app, "statement", "shop", "INSERT INTO audit (what) VALUES ('report')", MARKED).startsWith("error=")
                    && System.nanoTime() < deadline) {
                Thread.sleep(200);
            }
            redis(app, "set", "session:9", "y", MARKED);
            kafka(app, "payments", "r1", MARKED);
            spans = app.stopAndReadSpans();
            write("shop", app.output());
        }
        assertTrue(spans.stream().anyMatch(s -> "visits_shadow".equals(s.attributes().get("richter.shadow.target"))
                && "1".equals(s.attributes().get("richter-loadtest"))), "routed and marked: " + spans);
        assertTrue(spans.stream().anyMatch(s -> s.attributes().containsKey("richter.refused")
                && "audit".equals(s.attributes().get("db.sql.table"))), "refused: " + spans);
        assertTrue(spans.stream().anyMatch(s -> s.attributes().containsKey("richter.would_refuse")
                && "payments".equals(s.attributes().get("messaging.destination.name"))), "would refuse: " + spans);
        assertTrue(spans.stream().anyMatch(s -> "shadow:stock:A1".equals(s.attributes().get("richter.shadow.target"))));
    }

    @Test
    void inventoryWithoutTheStorageModulesLetsMarkedCallsReachProductionInTheNewSemconv() throws Exception {
        Path document = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "shadows", ".json");
        Files.writeString(document, document("enforce"));
        List<Span> spans;
        try (ChildJvm app = child("inventory", document, List.of("-Dotel.semconv-stability.opt-in=database",
                "-Dotel.instrumentation.richter-jdbc.enabled=false", "-Dotel.instrumentation.richter-jedis.enabled=false",
                "-Dotel.instrumentation.richter-kafka-producer.enabled=false"))) {
            sqlAt(app, "statement", "shop", "INSERT INTO visits (page) VALUES ('leak')", MARKED);
            sqlAt(app, "statement", "shop", "SELECT COUNT(*) FROM visits", MARKED);
            sqlAt(app, "statement", "shop", "SELECT name FROM customers", MARKED);
            sqlAt(app, "statement", "shop", "SELECT v.page FROM visits v JOIN customers c ON v.page = c.name", MARKED);
            sqlAt(app, "statement", "shop", "MERGE INTO visits KEY(page) VALUES ('merged')", MARKED);
            sqlAt(app, "statement", "shop", UNPARSABLE, MARKED);
            sqlAt(app, "statement", "shop", "SELECT COUNT(*) FROM visits_shadow", null);
            sqlAt(app, "statement", "billing", "INSERT INTO invoices VALUES (10)", MARKED);
            redis(app, "set", "stock:B2", "3", MARKED);
            kafka(app, "orders", "leak", MARKED);
            spans = app.stopAndReadSpans();
            write("inventory", app.output());
        }
        assertTrue(spans.stream().anyMatch(s -> "visits".equals(s.attributes().get("db.collection.name"))
                && "1".equals(s.attributes().get("richter-loadtest"))), "marked, new semconv: " + spans);
        assertTrue(spans.stream().noneMatch(s -> s.attributes().containsKey("richter.shadow.target")), "nothing routed");
        try (Jedis jedis = new Jedis("127.0.0.1", redisPort)) {
            assertEquals("3", jedis.get("stock:B2"), "the marked write reached production");
        }
    }

    private ChildJvm child(String service, Path document, List<String> more) throws Exception {
        List<String> flags = new ArrayList<>(List.of("-Dotel.service.name=" + service,
                "-Dotel.javaagent.extensions=" + System.getProperty("richter.extension.jar") + ","
                        + System.getProperty("richter.baggage.jar"),
                "-Dotel.java.experimental.span-attributes.copy-from-baggage.include=*",
                "-Drichter.isolation.file=" + document, "-Drichter.isolation.refresh-s=1",
                "-Dapp.pool.url=" + url("ledger") + ";SCHEMA=SALES", "-Dapp.hikari.url=" + url("ledger") + ";SCHEMA=SALES",
                "-Dapp.shop.url=" + url("shop"), "-Dapp.held.url=" + url("billing"), "-Dapp.redis.port=" + redisPort,
                "-Dapp.kafka.bootstrap=" + kafka.bootstrapServers()));
        flags.addAll(more);
        return new ChildJvm(flags, StorageTestApp.class, List.of(org.h2.Driver.class, HikariDataSource.class, Jedis.class,
                org.apache.commons.pool2.ObjectPool.class, KafkaProducer.class, org.slf4j.LoggerFactory.class,
                com.google.gson.Gson.class, org.json.JSONObject.class));
    }

    private static String document(String mode) {
        return """
                {"mode": "%s", "refreshS": 1, "scope": [], "mocks": [],
                 "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow"},
                             {"kind": "schema", "production": "SALES", "shadow": "SALES_SHADOW"},
                             {"kind": "cache", "production": "stock:", "shadow": "shadow:stock:"},
                             {"kind": "topic", "production": "orders", "shadow": "orders-shadow"}]}
                """.formatted(mode);
    }

    /** The exporter's lines of {@code output} merged into one OTLP/JSON document at target/shadow-spans/. */
    private static void write(String service, String output) throws Exception {
        ObjectNode doc = JSON.createObjectNode();
        ArrayNode all = doc.putArray("resourceSpans");
        for (String line : output.split("\n")) {
            int json = line.indexOf("{\"resource\"");
            if (json >= 0) {
                all.add(JSON.readTree(line.substring(json)));
            }
        }
        Path out = Files.createDirectories(Path.of("target", "shadow-spans")).resolve(service + ".otlp.json");
        Files.writeString(out, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(doc));
    }

    private String url(String database) {
        return base + database + ";DB_CLOSE_DELAY=-1";
    }

    private String sqlAt(ChildJvm app, String how, String database, String statement, String baggage) throws Exception {
        return app.get("/sql?how=" + how + "&url=" + enc(url(database)) + "&sql=" + enc(statement), baggage).body();
    }

    private static String redis(ChildJvm app, String op, String key, String value, String baggage) throws Exception {
        return app.get("/redis?op=" + op + "&key=" + enc(key) + "&value=" + enc(value), baggage).body();
    }

    private static String kafka(ChildJvm app, String topic, String value, String baggage) throws Exception {
        return app.get("/kafka?topic=" + enc(topic) + "&value=" + enc(value), baggage).body();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private void sql(String database, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(url(database), "sa", ""); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
