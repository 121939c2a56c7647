package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The JDBC isolation on a driver teams use besides H2 (issue 46 item 2), each subclass one database: a private server
 * ({@link DatabaseServer}) with the databases {@code shop} (tables {@code visits}, {@code visits_shadow}, {@code
 * audit}), {@code billing} and {@code billing_shadow} (a table {@code invoices} each), and {@link JdbcTestApp} in a
 * child JVM ({@link ChildJvm}: the real agent, the built extension, Java 17) with the database's real JDBC driver. The
 * document maps the table {@code visits} to {@code visits_shadow} ({@code kind: table}) and the database {@code
 * billing} to {@code billing_shadow} ({@code kind: schema}), so the extension asks each connection of a marked call
 * its catalog and schema: the statements a driver runs to answer ({@code CALL CURRENT_SCHEMA} on HSQLDB, {@code select
 * current_schema()} on PostgreSQL) are the extension's own and never judged as the service's. Every count is read by
 * the test's own connection to the database. The tests run in order on one child; the last one reads its log.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
abstract class JdbcDriverIsolation {
    /** The document of these tests (enforce). */
    static final String DOCUMENT = """
            {"mode": "enforce", "refreshS": 30, "scope": [], "mocks": [],
             "shadows": [{"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"},
                         {"kind": "schema", "production": "billing", "shadow": "billing_shadow", "service": "shop"}]}
            """;
    static final List<String> DATABASES = List.of("shop", "billing", "billing_shadow");

    private DatabaseServer db;
    private ChildJvm app;

    /** Starts this class's database server with {@code databases}; called once, before the child starts. */
    abstract DatabaseServer start(List<String> databases) throws Exception;

    /** The JDBC driver's class, whose jar goes on the child's class path. */
    abstract Class<?> driver();

    @BeforeAll
    void startAll() throws Exception {
        db = start(DATABASES);
        createTables(db);
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), DOCUMENT);
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document), JdbcTestApp.class, List.of(driver()));
    }

    /** The tables of {@link #DOCUMENT}'s databases, empty. */
    static void createTables(DatabaseServer db) throws Exception {
        db.execute("shop", "CREATE TABLE visits (page VARCHAR(40))", "CREATE TABLE visits_shadow (page VARCHAR(40))",
                "CREATE TABLE audit (what VARCHAR(40))");
        db.execute("billing", "CREATE TABLE invoices (amount INT)");
        db.execute("billing_shadow", "CREATE TABLE invoices (amount INT)");
    }

    @AfterAll
    void stopAll() {
        ChildJvm.closeAll(app, db);
    }

    @Test
    @Order(1)
    void markedInsertsGoToTheShadowTableAndUnmarkedOnesToProduction() throws Exception {
        for (String how : List.of("statement", "prepared")) {
            String answer = sql(how, "shop", "INSERT INTO visits (page) VALUES ('m')", MARKED);
            assertTrue(answer.startsWith("updated=1"), how + ": " + answer + "\n" + app.output());
        }
        assertEquals(2, db.count("shop", "visits_shadow"));
        assertEquals(0, db.count("shop", "visits"), "a marked row reached production");

        for (String how : List.of("statement", "prepared")) {
            assertTrue(sql(how, "shop", "INSERT INTO visits (page) VALUES ('u')", null).startsWith("updated=1"), how);
        }
        assertEquals(2, db.count("shop", "visits"));
        assertEquals(2, db.count("shop", "visits_shadow"));
    }

    @Test
    @Order(2)
    void aMarkedWriteToATableWithoutAShadowIsRefusedAndNoRowLands() throws Exception {
        for (String how : List.of("statement", "prepared")) {
            String answer = sql(how, "shop", "INSERT INTO audit (what) VALUES ('marked')", MARKED);
            assertTrue(answer.contains("Richter isolation refused a marked call to exit 'table audit': a marked write"
                    + " to table 'audit', which has no shadow table"), how + ": " + answer);
        }
        assertEquals(0, db.count("shop", "audit"), "a refused write reached production");

        assertTrue(sql("statement", "shop", "INSERT INTO audit (what) VALUES ('unmarked')", null).startsWith("updated=1"));
        assertEquals(1, db.count("shop", "audit"));
    }

    @Test
    @Order(3)
    void aConnectionOpenedWhileMarkedGoesToTheShadowDatabaseAndNeverToProduction() throws Exception {
        String answer = sql("statement", "billing", "INSERT INTO invoices VALUES (10)", MARKED);
        assertTrue(sql("prepared", "billing", "INSERT INTO invoices VALUES (99)", null).startsWith("updated=1"));

        assertEquals(1, db.count("billing", "invoices"), "only the unmarked row: " + answer);
        if (routesByUrl()) {
            assertTrue(answer.startsWith("updated=1"), answer);
            assertEquals(1, db.count("billing_shadow", "invoices"));
        } else {
            assertTrue(answer.contains("Richter isolation refused a marked call to exit 'table invoices'"), answer);
            assertEquals(0, db.count("billing_shadow", "invoices"));
        }
    }

    /**
     * Whether a marked write on a connection opened to the shadow database by URL is let through: the extension
     * knows the connection's database by its catalog or schema. HSQLDB answers {@code PUBLIC} for both whatever
     * database the URL names, so there the write is refused as one to a table without a shadow (fail closed: nothing
     * lands anywhere).
     */
    boolean routesByUrl() {
        return true;
    }

    @Test
    @Order(4)
    void theServiceRefusesOnlyItsOwnWritesNeverTheDriversSchemaLookups() throws Exception {
        List<String> refusals = app.output().lines()
                .filter(l -> l.contains("RichterIsolationGuard - Richter isolation refused")).toList();
        Pattern lookup = Pattern.compile("(?i)current_schema|current_catalog|database\\(\\)|schema\\(\\)");
        List<ChildJvm.Span> spans = app.stopAndReadSpans();

        int expected = routesByUrl() ? 2 : 3;
        assertEquals(expected, refusals.size(), "the marked writes to audit (and invoices): " + refusals);
        for (String refusal : refusals) {
            assertTrue(refusal.contains("table 'audit'") || (!routesByUrl() && refusal.contains("table 'invoices'")),
                    refusal);
        }
        List<ChildJvm.Span> lookups = spans.stream().filter(s -> lookup.matcher(
                s.attributes().getOrDefault("db.statement", s.attributes().getOrDefault("db.query.text", ""))).find())
                .toList();
        assertTrue(lookups.stream().noneMatch(s -> s.attributes().containsKey("richter.refused")),
                "a schema lookup was refused: " + lookups);
    }

    private String sql(String how, String database, String statement, String baggage) throws Exception {
        return app.get("/sql?how=" + how + "&url=" + enc(db.url(database)) + "&user=" + enc(db.user) + "&password="
                + enc(db.password) + "&sql=" + enc(statement), baggage).body();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
