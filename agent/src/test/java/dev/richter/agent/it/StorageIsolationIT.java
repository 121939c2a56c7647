package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.test.TestKitNodes;
import com.zaxxer.hikari.HikariDataSource;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.Jedis;

/**
 * The storage isolation in a real child JVM ({@link ChildJvm}, the real agent and the built extension) running {@link
 * StorageTestApp}, which has no Richter code: the H2 2.3 driver over TCP to an H2 server this test starts, H2's own
 * connection pool and HikariCP 7, Jedis 7 to a {@code redis-server} this test starts on an ephemeral port, and a kafka-clients 4.1
 * producer to an embedded KRaft broker ({@code KafkaClusterTestKit}). Every count is read
 * by this test through its own connections (no agent here). The document comes from a file the child reloads every
 * second. One child serves every case, in order; the last one stops it and reads its spans.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StorageIsolationIT {
    private Server h2;
    private Process redisServer;
    private int redisPort;
    private Path document;
    private KafkaClusterTestKit kafka;
    private ChildJvm app;
    private String base;

    @BeforeAll
    void start() throws Exception {
        h2 = Server.createTcpServer("-tcpPort", String.valueOf(freePort()), "-ifNotExists").start();
        base = "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/mem:";
        // the in-memory databases are the test JVM's, shared with ShadowSpansFixtureIT's of the same names: start empty
        for (String db : List.of("shop", "billing", "billing_shadow", "ledger")) {
            sql(db, "DROP ALL OBJECTS");
        }
        sql("shop", "CREATE TABLE visits (page VARCHAR(40))", "CREATE TABLE visits_shadow (page VARCHAR(40))",
                "CREATE TABLE audit (what VARCHAR(40))", "CREATE TABLE customers (name VARCHAR(40))",
                "INSERT INTO customers VALUES ('Ada')");
        sql("billing", "CREATE TABLE invoices (amount INT)");
        sql("billing_shadow", "CREATE TABLE invoices (amount INT)");
        sql("ledger", "CREATE SCHEMA SALES", "CREATE SCHEMA SALES_SHADOW", "CREATE TABLE SALES.entries (amount INT)",
                "CREATE TABLE SALES_SHADOW.entries (amount INT)");
        redisPort = freePort();
        redisServer = startRedis(redisPort);
        try (Jedis jedis = redis()) {
            jedis.set("config:flag", "on");
        }
        kafka = startKafka("orders", "orders-shadow", "payments");
        document = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "isolation", ".json");
        Files.writeString(document, isolationDocument("enforce"));
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Drichter.isolation.refresh-s=1",
                "-Dapp.pool.url=" + url("ledger") + ";SCHEMA=SALES", "-Dapp.hikari.url=" + url("ledger") + ";SCHEMA=SALES", "-Dapp.shop.url=" + url("shop"), "-Dapp.held.url=" + url("billing"),
                "-Dapp.redis.port=" + redisPort, "-Dapp.kafka.bootstrap=" + kafka.bootstrapServers()), StorageTestApp.class,
                List.of(org.h2.Driver.class, HikariDataSource.class, Jedis.class, org.apache.commons.pool2.ObjectPool.class, KafkaProducer.class,
                        org.slf4j.LoggerFactory.class, com.google.gson.Gson.class, org.json.JSONObject.class));
    }

    @AfterAll
    void stop() {
        if (app != null) {
            app.close();
        }
        if (redisServer != null) {
            redisServer.destroyForcibly();
        }
        if (h2 != null) {
            h2.stop();
        }
        try {
            if (kafka != null) {
                kafka.close();
            }
        } catch (Exception e) {
            // the JVM ends anyway
        }
    }

    @Test
    @Order(1)
    void markedWritesGoToTheShadowTableThroughStatementsAndPreparedStatementsAndUnmarkedOnesToProduction()
            throws Exception {
        for (int i = 0; i < 3; i++) {
            assertTrue(sqlAt("statement", "shop", "INSERT INTO visits (page) VALUES ('m" + i + "')", MARKED)
                    .startsWith("updated=1"));
        }
        for (int i = 0; i < 2; i++) {
            assertTrue(sqlAt("prepared", "shop", "INSERT INTO visits (page) VALUES ('p" + i + "')", MARKED)
                    .startsWith("updated=1"));
        }
        assertTrue(sqlAt("statement", "shop", "INSERT INTO visits (page) VALUES ('u0')", null).startsWith("updated=1"));
        assertTrue(sqlAt("prepared", "shop", "INSERT INTO visits (page) VALUES ('u1')", null).startsWith("updated=1"));

        assertEquals(5, count("shop", "visits_shadow"));
        assertEquals(2, count("shop", "visits"));
        assertEquals(0, count("shop", "SELECT COUNT(*) FROM visits_shadow WHERE page LIKE 'u%'"));
    }

    @Test
    @Order(2)
    void markedReadsSeeTheShadowTableAndReadReferenceTablesAsTheyAre() throws Exception {
        assertEquals("value=5 schema=PUBLIC", sqlAt("statement", "shop", "SELECT COUNT(*) FROM visits", MARKED));
        assertEquals("value=5 schema=PUBLIC", sqlAt("prepared", "shop", "SELECT COUNT(v.page) FROM visits v", MARKED));
        assertEquals("value=2 schema=PUBLIC", sqlAt("statement", "shop", "SELECT COUNT(*) FROM visits", null));
        assertEquals("value=Ada schema=PUBLIC", sqlAt("prepared", "shop", "SELECT name FROM customers", MARKED));
    }

    @Test
    @Order(3)
    void aMarkedWriteToATableWithoutAShadowIsRefusedNamingItAndNeverSent() throws Exception {
        for (String how : List.of("statement", "prepared")) {
            String answer = sqlAt(how, "shop", "INSERT INTO audit (what) VALUES ('marked')", MARKED);
            assertTrue(answer.startsWith("error=java.sql.SQLException: Richter isolation refused a marked call to exit"
                    + " 'table audit': a marked write to table 'audit', which has no shadow table"), answer);
        }
        assertEquals(0, count("shop", "audit"));
        assertTrue(sqlAt("statement", "shop", "INSERT INTO audit (what) VALUES ('unmarked')", null)
                .startsWith("updated=1"));
        assertEquals(1, count("shop", "audit"));
    }

    @Test
    @Order(4)
    void aMarkedCallRunningAStatementPreparedUnmarkedIsRefused() throws Exception {
        String answer = sql("heldprepared", "", "", MARKED);

        assertTrue(answer.startsWith("error=java.sql.SQLException: Richter isolation refused a marked call to exit"
                + " 'prepared statement': the prepared statement was prepared by an unmarked call"), answer);
        assertEquals(0, count("shop", "SELECT COUNT(*) FROM visits WHERE page = 'held'"));
        assertEquals("updated=1", sql("heldprepared", "", "", null));
        assertEquals(1, count("shop", "SELECT COUNT(*) FROM visits WHERE page = 'held'"));
        assertEquals(5, count("shop", "visits_shadow"));
    }

    @Test
    @Order(5)
    void aConnectionOpenedWhileMarkedGoesToTheShadowDatabase() throws Exception {
        for (int i = 0; i < 2; i++) {
            assertEquals("updated=1 schema=PUBLIC", sqlAt("statement", "billing", "INSERT INTO invoices VALUES (10)", MARKED));
        }
        assertEquals("updated=1 schema=PUBLIC", sqlAt("prepared", "billing", "INSERT INTO invoices VALUES (20)", MARKED));
        assertEquals("updated=1 schema=PUBLIC", sqlAt("statement", "billing", "INSERT INTO invoices VALUES (99)", null));

        assertEquals(3, count("billing_shadow", "invoices"));
        assertEquals(1, count("billing", "invoices"));
    }

    @Test
    @Order(6)
    void aMarkedStatementOnAProductionConnectionOpenedUnmarkedIsRefused() throws Exception {
        String answer = sql("held", "", "INSERT INTO invoices VALUES (1)", MARKED);

        assertTrue(answer.startsWith("error=java.sql.SQLException: Richter isolation refused a marked call to exit"
                + " 'database BILLING': the connection is to production database 'BILLING'"), answer);
        assertEquals(1, count("billing", "invoices"));
        assertEquals(3, count("billing_shadow", "invoices"));
    }

    @Test
    @Order(7)
    void aPooledConnectionTakenWhileMarkedIsTheShadowSchemasAndGoesBackToThePoolAsProductions() throws Exception {
        for (int i = 0; i < 2; i++) {
            assertEquals("updated=1 schema=SALES_SHADOW", sql("pool", "", "INSERT INTO entries VALUES (5)", MARKED));
        }
        // the pool holds one connection: the same one the marked calls had
        assertEquals("updated=1 schema=SALES", sql("pool", "", "INSERT INTO entries VALUES (7)", null));

        assertEquals(2, count("ledger", "SALES_SHADOW.entries"));
        assertEquals(1, count("ledger", "SALES.entries"));
    }

    @Test
    @Order(8)
    void aHikariConnectionTakenWhileMarkedIsTheShadowSchemasAndGoesBackToThePoolAsProductions() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertEquals("updated=1 schema=SALES_SHADOW", sql("hikari", "", "INSERT INTO entries VALUES (6)", MARKED));
        }
        // one connection in the pool: the one the marked calls had
        assertEquals("updated=1 schema=SALES", sql("hikari", "", "INSERT INTO entries VALUES (8)", null));

        assertEquals(5, count("ledger", "SALES_SHADOW.entries"));
        assertEquals(2, count("ledger", "SALES.entries"));
    }

    @Test
    @Order(9)
    void markedRedisKeysGetTheShadowPrefixAndAMarkedWriteToAnUnmappedKeyIsRefused() throws Exception {
        assertEquals("ok=OK", redisAt("set", "stock:1", "7", MARKED));
        assertEquals("ok=OK", redisAt("set", "stock:1", "100", null));
        assertEquals("ok=7", redisAt("get", "stock:1", "", MARKED));
        assertEquals("ok=100", redisAt("get", "stock:1", "", null));
        assertEquals("ok=on", redisAt("get", "config:flag", "", MARKED));
        String refused = redisAt("set", "session:9", "x", MARKED);

        assertTrue(refused.startsWith("error=redis.clients.jedis.exceptions.JedisDataException: Richter isolation"
                + " refused a marked call to exit 'redis SET session:9': a marked write to key 'session:9'"), refused);
        try (Jedis jedis = redis()) {
            assertEquals(Set.of("stock:1", "shadow:stock:1", "config:flag"), new TreeSet<>(jedis.keys("*")));
            assertEquals("7", jedis.get("shadow:stock:1"));
            assertEquals("100", jedis.get("stock:1"));
        }
    }

    @Test
    @Order(10)
    void aMarkedRecordGoesToTheShadowTopicCarryingTheMarkerAndOneToATopicWithoutAShadowIsRefused() throws Exception {
        assertEquals("ok=orders-shadow", kafkaAt("orders", "m1", MARKED));
        assertEquals("ok=orders", kafkaAt("orders", "u1", null));
        String refused = kafkaAt("payments", "m2", MARKED);

        assertTrue(refused.startsWith("error=org.apache.kafka.common.KafkaException: Richter isolation refused a marked"
                + " call to exit 'topic payments': a marked record to topic 'payments'"), refused);
        List<ConsumerRecord<String, String>> shadow = records("orders-shadow", 1);
        assertEquals(List.of("m1"), shadow.stream().map(ConsumerRecord::value).toList());
        assertTrue(new String(shadow.get(0).headers().lastHeader("baggage").value(), StandardCharsets.UTF_8)
                .contains(MARKED), "the marker travels with the record");
        assertEquals(List.of("u1"), records("orders", 1).stream().map(ConsumerRecord::value).toList());
        assertEquals(List.of(), records("payments", 0));
    }

    @Test
    @Order(11)
    void reportModeLetsWhatWouldBeRefusedThroughAndStillRoutesEveryShadow() throws Exception {
        Files.writeString(document, isolationDocument("report"));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String answer = sqlAt("statement", "shop", "INSERT INTO audit (what) VALUES ('report')", MARKED);
        int refusedWhileReloading = 0;
        while (answer.startsWith("error=") && System.nanoTime() < deadline) {
            refusedWhileReloading++;
            Thread.sleep(200);
            answer = sqlAt("statement", "shop", "INSERT INTO audit (what) VALUES ('report')", MARKED);
        }
        assertTrue(answer.startsWith("updated=1"), answer);
        assertEquals(2, count("shop", "audit"), "the unmarked row and the report-mode one");
        assertEquals(0, refusedWhileReloading == 0 ? 0 : count("shop", "SELECT COUNT(*) FROM audit WHERE what = 'marked'"));
        assertTrue(sqlAt("statement", "shop", "INSERT INTO visits (page) VALUES ('r')", MARKED).startsWith("updated=1"));
        assertEquals(6, count("shop", "visits_shadow"));
        assertEquals(3, count("shop", "visits"), "the two unmarked rows and the held statement's");
        assertEquals("ok=OK", redisAt("set", "session:9", "x", MARKED));
        assertEquals("ok=OK", redisAt("set", "stock:2", "1", MARKED));
        try (Jedis jedis = redis()) {
            assertEquals(Set.of("stock:1", "shadow:stock:1", "shadow:stock:2", "config:flag", "session:9"),
                    new TreeSet<>(jedis.keys("*")));
        }
        assertEquals("ok=payments", kafkaAt("payments", "r1", MARKED));
        assertEquals("ok=orders-shadow", kafkaAt("orders", "m3", MARKED));
        assertEquals(List.of("r1"), records("payments", 1).stream().map(ConsumerRecord::value).toList());
        assertEquals(List.of("m1", "m3"), records("orders-shadow", 2).stream().map(ConsumerRecord::value).toList());
        assertEquals(List.of("u1"), records("orders", 1).stream().map(ConsumerRecord::value).toList());
    }

    @Test
    @Order(12)
    void theShadowTargetsAndRefusalsAreStampedOnTheSpans() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        List<Span> shadowTable = spans.stream()
                .filter(s -> "visits_shadow".equals(s.attributes().get("richter.shadow.target"))).toList();
        assertTrue(shadowTable.stream().anyMatch(s -> s.kind() == Span.CLIENT
                && s.attributes().getOrDefault("db.query.text", s.attributes().getOrDefault("db.statement", ""))
                .contains("visits")), "a client span with the agent's db attributes: " + shadowTable);
        // each execution's own span says where it went, prepared statements too (their SQL was decided at the
        // prepare): 6 marked INSERTs into visits (3 statements, 2 prepared, 1 in report mode); 3 unmarked (a statement,
        // a prepared one, the held one) and the held one refused to a marked call
        List<Span> visitInserts = spans.stream().filter(s -> s.kind() == Span.CLIENT && s.attributes()
                .getOrDefault("db.query.text", s.attributes().getOrDefault("db.statement", "")).startsWith("INSERT INTO visits"))
                .toList();
        assertEquals(6, visitInserts.stream().filter(s -> "visits_shadow".equals(s.attributes().get("richter.shadow.target")))
                .count(), "marked inserts stamped on their own spans: " + visitInserts);
        List<Span> notRouted = visitInserts.stream().filter(s -> !s.attributes().containsKey("richter.shadow.target"))
                .toList();
        assertEquals(4, notRouted.size(), "unmarked and refused inserts: " + notRouted);
        assertEquals(1, notRouted.stream().filter(s -> s.attributes().containsKey("richter.refused")).count(), notRouted.toString());
        assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.refused", "")
                .contains("table 'audit'")), "refused: " + spans);
        assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.would_refuse", "")
                .contains("table 'audit'")), "would refuse: " + spans);
        assertTrue(spans.stream().anyMatch(s -> "billing_shadow".equals(s.attributes().get("richter.shadow.target"))));
        assertTrue(spans.stream().anyMatch(s -> "SALES_SHADOW".equals(s.attributes().get("richter.shadow.target"))));
        assertTrue(spans.stream().anyMatch(s -> "shadow:stock:1".equals(s.attributes().get("richter.shadow.target"))));
        assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.would_refuse", "")
                .contains("key 'session:9'")));
        assertTrue(spans.stream().anyMatch(s -> "orders-shadow".equals(s.attributes().get("richter.shadow.target"))));
        assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.refused", "")
                .contains("topic 'payments'")));
        // the shadow pre-check: one round, on the one database that has the mapped table (enforce and report map the
        // same tables); billing and ledger have no table 'visits', so no round of theirs
        List<Span> prechecks = spans.stream().filter(s -> s.name().startsWith("richter.shadow-precheck")).toList();
        assertEquals(List.of("richter.shadow-precheck", "richter.shadow-precheck.table"),
                prechecks.stream().map(Span::name).sorted().toList(), "pre-check spans: " + prechecks);
        for (Span s : prechecks) {
            assertEquals(base + "shop", s.attributes().get("richter.precheck.database"));
            assertEquals("PASS", s.attributes().get("richter.precheck.outcome"));
            assertEquals(null, s.attributes().get("richter.precheck.failed"));
            assertEquals(null, s.attributes().get("richter.precheck.reason"));
        }
    }

    private String isolationDocument(String mode) {
        return """
                {"mode": "%s", "refreshS": 1, "scope": [], "mocks": [],
                 "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"},
                             {"kind": "schema", "production": "billing", "shadow": "billing_shadow", "service": "shop"},
                             {"kind": "schema", "production": "SALES", "shadow": "SALES_SHADOW", "service": "shop"},
                             {"kind": "cache", "production": "stock:", "shadow": "shadow:stock:", "service": "shop"},
                             {"kind": "topic", "production": "orders", "shadow": "orders-shadow", "service": "shop"}]}
                """.formatted(mode);
    }

    private String url(String database) {
        return base + database + ";DB_CLOSE_DELAY=-1";
    }

    private String sqlAt(String how, String database, String statement, String baggage) throws Exception {
        return sql(how, url(database), statement, baggage);
    }

    private String sql(String how, String jdbcUrl, String statement, String baggage) throws Exception {
        return app.get("/sql?how=" + how + "&url=" + enc(jdbcUrl) + "&sql=" + enc(statement), baggage).body();
    }

    private String redisAt(String op, String key, String value, String baggage) throws Exception {
        return app.get("/redis?op=" + op + "&key=" + enc(key) + "&value=" + enc(value), baggage).body();
    }

    private String kafkaAt(String topic, String value, String baggage) throws Exception {
        return app.get("/kafka?topic=" + enc(topic) + "&value=" + enc(value), baggage).body();
    }

    /** Every record of {@code topic}'s one partition, read by this test's own consumer once {@code expected} are in. */
    private List<ConsumerRecord<String, String>> records(String topic, int expected) {
        Map<String, Object> config = Map.of("bootstrap.servers", kafka.bootstrapServers(),
                "key.deserializer", StringDeserializer.class.getName(),
                "value.deserializer", StringDeserializer.class.getName(), "enable.auto.commit", "false");
        List<ConsumerRecord<String, String>> out = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            // none expected: poll 2 s to see that none come
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(expected == 0 ? 2 : 15);
            while (System.nanoTime() < deadline && (out.size() < expected || expected == 0)) {
                consumer.poll(Duration.ofMillis(200)).forEach(out::add);
            }
        }
        return out;
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

    /** Rows of {@code table}, or the first value of a {@code SELECT}, read by this test's own connection. */
    private long count(String database, String tableOrQuery) throws Exception {
        String query = tableOrQuery.startsWith("SELECT") ? tableOrQuery : "SELECT COUNT(*) FROM " + tableOrQuery;
        try (Connection c = DriverManager.getConnection(url(database), "sa", "");
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private Jedis redis() {
        return new Jedis("127.0.0.1", redisPort);
    }

    /** A {@code redis-server} on {@code port} (loopback, no persistence), once it answers PING (20 s at most). */
    static Process startRedis(int port) throws Exception {
        Path binary = Path.of("/usr/bin/redis-server");
        if (!Files.isExecutable(binary)) {
            throw new IllegalStateException("StorageIsolationIT needs redis-server: apt-get install -y redis-server");
        }
        Path log = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "redis", ".log");
        Process p = new ProcessBuilder(binary.toString(), "--port", String.valueOf(port), "--bind", "127.0.0.1",
                "--save", "", "--appendonly", "no").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            try (Jedis jedis = new Jedis("127.0.0.1", port)) {
                if ("PONG".equals(jedis.ping())) {
                    return p;
                }
            } catch (RuntimeException notYet) {
                if (!p.isAlive() || System.nanoTime() > deadline) {
                    p.destroyForcibly();
                    throw new IllegalStateException("redis-server did not start:\n" + Files.readString(log));
                }
                Thread.sleep(100);
            }
        }
    }

    /** An embedded KRaft broker (one combined node), ready, with {@code topics} of one partition each. */
    static KafkaClusterTestKit startKafka(String... topics) throws Exception {
        KafkaClusterTestKit kafka = new KafkaClusterTestKit.Builder(new TestKitNodes.Builder().setCombined(true)
                .setNumBrokerNodes(1).setNumControllerNodes(1).build()).build();
        kafka.format();
        kafka.startup();
        kafka.waitForReadyBrokers();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", kafka.bootstrapServers()))) {
            admin.createTopics(Arrays.stream(topics).map(t -> new NewTopic(t, 1, (short) 1)).toList()).all()
                    .get(30, TimeUnit.SECONDS);
        }
        return kafka;
    }

    /** A TCP port free at the time of the call. */
    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}
