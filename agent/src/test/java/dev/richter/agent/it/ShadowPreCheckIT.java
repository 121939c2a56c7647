package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.richter.agent.it.ChildJvm.Span;
import java.net.ServerSocket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.h2.tools.Server;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The shadow pre-check in a real child JVM (the agent and the built extension) running {@link PreCheckTestApp}, which
 * has no Richter code, against an H2 2.3 server this test starts: its user {@code app} may read every table and write
 * every shadow but {@code audit_shadow}. The document is a file that appears only after the child has started; its
 * {@code kind: table} shadows are one fit shadow ({@code visits}), one missing ({@code orders}), one whose column
 * differs ({@code payments}), one the user may not write ({@code audit}) and a view ({@code stock}). Each round is read
 * from the child's log while it runs and from its exported spans at the end. Tests run in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShadowPreCheckIT {
    private static final String ROUND_LOG = "Richter isolation: shadow pre-check of ";
    private Server h2;
    private Connection owner;
    private Path document;
    private ChildJvm app;
    private String database;

    @BeforeAll
    void start() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        h2 = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifNotExists").start();
        database = "jdbc:h2:tcp://127.0.0.1:" + h2.getPort() + "/mem:precheck";
        owner = DriverManager.getConnection(database + ";DB_CLOSE_DELAY=-1", "sa", "");
        sql("CREATE TABLE visits (id INT NOT NULL, page VARCHAR(40))",
                "CREATE TABLE visits_shadow (id INT NOT NULL, page VARCHAR(40))",
                "CREATE TABLE orders (id INT NOT NULL, total DECIMAL(10,2))",
                "CREATE TABLE payments (id INT NOT NULL, amount INT)",
                "CREATE TABLE payments_shadow (id INT NOT NULL, amount VARCHAR(10))",
                "CREATE TABLE payments_shadow2 (id INT NOT NULL, amount INT)",
                "CREATE TABLE audit (what VARCHAR(40))", "CREATE TABLE audit_shadow (what VARCHAR(40))",
                "CREATE TABLE stock (sku VARCHAR(10))", "CREATE VIEW stock_shadow AS SELECT sku FROM stock",
                "CREATE USER app PASSWORD 'app'",
                "GRANT SELECT ON visits, visits_shadow, orders, payments, payments_shadow, payments_shadow2, audit,"
                        + " audit_shadow, stock, stock_shadow TO app",
                "GRANT INSERT ON visits_shadow, payments_shadow, payments_shadow2, stock_shadow TO app");
        Path dir = Files.createDirectories(Path.of("target", "it-logs"));
        document = dir.resolve("precheck-" + System.nanoTime() + ".json");
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Drichter.isolation.refresh-s=1",
                "-Dapp.url=" + database, "-Dapp.user=app"), PreCheckTestApp.class,
                List.of(org.h2.Driver.class, HikariDataSource.class, org.slf4j.LoggerFactory.class));
    }

    @AfterAll
    void stop() throws Exception {
        ChildJvm.closeAll(app, owner);
        if (h2 != null) {
            h2.stop();
        }
    }

    @Test
    @Order(1)
    void noRoundRunsBeforeADocumentLoads() throws Exception {
        assertEquals("value=0", query("hikari", "SELECT COUNT(*) FROM visits"));
        assertEquals("value=0", query("driver", "SELECT COUNT(*) FROM visits"));
        Thread.sleep(1500);

        assertEquals(0, rounds(), app.output());
    }

    @Test
    @Order(2)
    void theFirstConnectionAfterTheDocumentLoadsStartsOneRoundAndLaterConnectionsNone() throws Exception {
        writeDocument("payments_shadow");
        awaitLoaded();
        assertEquals(0, rounds(), "a round before any connection was obtained");

        assertEquals("value=0", query("hikari", "SELECT COUNT(*) FROM visits"));
        awaitRounds(1);
        for (int i = 0; i < 3; i++) {
            assertEquals("value=0", query(i == 1 ? "driver" : "hikari", "SELECT COUNT(*) FROM visits"));
        }
        writeDocument("payments_shadow"); // the same shadows again: reloaded, not checked again
        Thread.sleep(2500);
        assertEquals("value=0", query("hikari", "SELECT COUNT(*) FROM visits"));
        Thread.sleep(1000);

        assertEquals(1, rounds(), app.output());
        assertTrue(app.output().contains(ROUND_LOG + database + ": 1 of 5 table shadows pass"), app.output());
    }

    @Test
    @Order(3)
    void aChangedSetOfTableShadowsIsCheckedAgainOnTheNextConnection() throws Exception {
        sql("CREATE TABLE orders_shadow (id INT NOT NULL, total DECIMAL(10,2))", "GRANT INSERT ON orders_shadow TO app",
                "GRANT SELECT ON orders_shadow TO app");
        writeDocument("payments_shadow2");
        Thread.sleep(2500); // reloaded (every second)

        assertEquals("value=0", query("driver", "SELECT COUNT(*) FROM visits"));
        awaitRounds(2);

        assertTrue(app.output().contains(ROUND_LOG + database + ": 3 of 5 table shadows pass"), app.output());
    }

    @Test
    @Order(4)
    void eachRoundIsOneSpanWithAChildPerTableNamingTheOutcomeAndTheReason() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        List<Span> rounds = spans.stream().filter(s -> s.name().equals("richter.shadow-precheck")).toList();
        assertEquals(2, rounds.size(), "rounds: " + rounds);
        assertEquals(List.of("FAIL", "FAIL"), rounds.stream().map(s -> s.attributes().get("richter.precheck.outcome")).toList());
        assertEquals(List.of("audit,orders,payments,stock", "audit,stock"),
                rounds.stream().map(s -> s.attributes().get("richter.precheck.failed")).toList());
        for (Span round : rounds) {
            assertEquals("dev.richter.agent", round.scope());
            assertEquals(database, round.attributes().get("richter.precheck.database"));
            assertEquals("5", round.attributes().get("richter.precheck.tables"));
            assertEquals("richter-shadow-precheck", round.attributes().get("thread.name"), "not on its own thread");
        }
        // the rounds' own connections, metadata reads and probe INSERTs run with the agent's instrumentation
        // suppressed: none is a span of the service's (a probe INSERT into a shadow would read as unmarked traffic
        // touching a shadow in Richter's shadow-writes check)
        assertEquals(List.of(), spans.stream().filter(s -> "richter-shadow-precheck".equals(s.attributes().get("thread.name"))
                && !s.name().startsWith("richter.shadow-precheck")).toList());
        List<Span> tables = spans.stream().filter(s -> s.name().equals("richter.shadow-precheck.table")).toList();
        assertEquals(10, tables.size(), "table checks: " + tables);
        String notWritable = "the shadow does not accept a write (INSERT INTO \"PUBLIC\".\"AUDIT_SHADOW\" (\"WHAT\")"
                + " SELECT \"WHAT\" FROM \"PUBLIC\".\"AUDIT\" WHERE 1=0): Not enough rights for object"
                + " \"PUBLIC.AUDIT_SHADOW\"";
        List<List<String>> expected = List.of(
                List.of("audit", "audit_shadow", "FAIL", notWritable),
                List.of("orders", "orders_shadow", "FAIL",
                        "the shadow table 'orders_shadow' does not exist (catalog PRECHECK, schema PUBLIC)"),
                List.of("payments", "payments_shadow", "FAIL", "column 2 differs: production 'AMOUNT INTEGER(32)"
                        + " NULL', shadow 'AMOUNT CHARACTER VARYING(10) NULL'"),
                List.of("stock", "stock_shadow", "FAIL", "the shadow 'stock_shadow' is a VIEW, not a table"),
                List.of("visits", "visits_shadow", "PASS", ""),
                List.of("audit", "audit_shadow", "FAIL", notWritable),
                List.of("orders", "orders_shadow", "PASS", ""),
                List.of("payments", "payments_shadow2", "PASS", ""),
                List.of("stock", "stock_shadow", "FAIL", "the shadow 'stock_shadow' is a VIEW, not a table"),
                List.of("visits", "visits_shadow", "PASS", ""));
        assertEquals(expected, tables.stream().map(ShadowPreCheckIT::tableCheck).toList());
    }

    /** Table, shadow, outcome and reason (H2's message up to its {@code ; SQL statement} tail) of a table span. */
    private static List<String> tableCheck(Span s) {
        Map<String, String> a = s.attributes();
        return List.of(a.get("richter.precheck.table"), a.get("richter.precheck.shadow"),
                a.get("richter.precheck.outcome"), a.getOrDefault("richter.precheck.reason", "").split("; SQL statement")[0]);
    }

    private void writeDocument(String paymentsShadow) throws Exception {
        Files.writeString(document, """
                {"mode": "enforce", "refreshS": 1, "scope": [], "mocks": [],
                 "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "order"},
                             {"kind": "table", "production": "orders", "shadow": "orders_shadow", "service": "order"},
                             {"kind": "table", "production": "payments", "shadow": "%s", "service": "order"},
                             {"kind": "table", "production": "audit", "shadow": "audit_shadow", "service": "order"},
                             {"kind": "table", "production": "stock", "shadow": "stock_shadow", "service": "order"}]}
                """.formatted(paymentsShadow));
    }

    /** A marked request is answered 503 until the child has loaded the document. */
    private void awaitLoaded() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (app.get("/ping", MARKED).statusCode() == 503) {
            assertTrue(System.nanoTime() < deadline, "document not loaded:\n" + app.output());
            Thread.sleep(200);
        }
    }

    private void awaitRounds(int expected) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (rounds() < expected) {
            assertTrue(System.nanoTime() < deadline, "pre-check round " + expected + " not run:\n" + app.output());
            Thread.sleep(200);
        }
    }

    private long rounds() throws Exception {
        return app.output().lines().filter(l -> l.contains(ROUND_LOG)).count();
    }

    private String query(String how, String sql) throws Exception {
        return app.get("/sql?how=" + how + "&sql=" + URLEncoder.encode(sql, StandardCharsets.UTF_8), null).body();
    }

    private void sql(String... statements) throws Exception {
        try (Statement s = owner.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }
}
