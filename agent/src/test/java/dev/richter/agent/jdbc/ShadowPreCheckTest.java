package dev.richter.agent.jdbc;

import static dev.richter.agent.bootstrap.ShadowCheck.Outcome.ABSENT;
import static dev.richter.agent.bootstrap.ShadowCheck.Outcome.FAIL;
import static dev.richter.agent.bootstrap.ShadowCheck.Outcome.PASS;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.agent.bootstrap.ShadowCheck;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/** {@link ShadowPreCheck#check} (its answers by production table name) on a real H2 2.3 database (in memory), as the owner and as a user with fewer rights. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShadowPreCheckTest {
    private static final String URL = "jdbc:h2:mem:precheck-unit;DB_CLOSE_DELAY=-1";
    private Connection owner;

    @BeforeAll
    void createTables() throws Exception {
        owner = DriverManager.getConnection(URL, "sa", "");
        try (Statement s = owner.createStatement()) {
            for (String sql : List.of(
                    "CREATE TABLE visits (id INT NOT NULL, page VARCHAR(40), amount DECIMAL(10,2))",
                    "CREATE TABLE visits_shadow (id INT NOT NULL, page VARCHAR(40), amount DECIMAL(10,2))",
                    "CREATE TABLE visitsXshadow2 (id INT NOT NULL)",
                    "CREATE TABLE narrow (page VARCHAR(40))", "CREATE TABLE narrow_shadow (page VARCHAR(20))",
                    "CREATE TABLE nulls (id INT NOT NULL)", "CREATE TABLE nulls_shadow (id INT)",
                    "CREATE TABLE fewer (id INT, note VARCHAR(10))", "CREATE TABLE fewer_shadow (id INT)",
                    "CREATE TABLE stock (sku VARCHAR(10))", "CREATE VIEW stock_shadow AS SELECT sku FROM stock",
                    "CREATE TABLE audit (what VARCHAR(40))", "CREATE TABLE audit_shadow (what VARCHAR(40))",
                    "CREATE SCHEMA sales", "CREATE TABLE sales.entries (amount INT)",
                    "CREATE TABLE sales.entries_shadow (amount INT)",
                    "CREATE USER app PASSWORD 'app'", "GRANT SELECT ON visits, visits_shadow, audit, audit_shadow TO app",
                    "GRANT INSERT ON visits_shadow TO app")) {
                s.execute(sql);
            }
        }
    }

    @AfterAll
    void drop() throws Exception {
        try (Statement s = owner.createStatement()) {
            s.execute("DROP ALL OBJECTS");
        }
        owner.close();
    }

    private List<ShadowCheck> check(Connection c, String... pairs) {
        Map<String, String> shadows = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            shadows.put(pairs[i], pairs[i + 1]);
        }
        return ShadowPreCheck.check(c, shadows);
    }

    @Test
    void aShadowWithTheSameColumnsThatAcceptsAWritePasses() throws Exception {
        assertEquals(List.of(new ShadowCheck("sales.entries", "sales.entries_shadow", PASS, ""),
                        new ShadowCheck("visits", "visits_shadow", PASS, "")),
                check(owner, "visits", "visits_shadow", "sales.entries", "sales.entries_shadow"));
        assertEquals(0, rows("visits_shadow"), "the probe wrote nothing");
        assertEquals(true, owner.getAutoCommit(), "the connection is left as found");
    }

    @Test
    void aMissingShadowFailsALikeNamedTableDoesNotCountAsItAndAMissingProductionTableIsAbsent() {
        assertEquals(List.of(new ShadowCheck("visits", "visits_shadow2", FAIL,
                        "the shadow table 'visits_shadow2' does not exist (catalog PRECHECK-UNIT, schema PUBLIC)")),
                check(owner, "visits", "visits_shadow2"));
        assertEquals(List.of(new ShadowCheck("gone", "gone_shadow", ABSENT,
                        "no production table 'gone' in this database (catalog PRECHECK-UNIT, schema PUBLIC)")),
                check(owner, "gone", "gone_shadow"));
    }

    @Test
    void aColumnThatDiffersInTypeSizeNullabilityOrCountFailsNamingIt() {
        assertEquals(List.of(
                new ShadowCheck("fewer", "fewer_shadow", FAIL,
                        "column 2 differs: production 'NOTE CHARACTER VARYING(10) NULL', shadow has none"),
                new ShadowCheck("narrow", "narrow_shadow", FAIL, "column 1 differs: production 'PAGE CHARACTER"
                        + " VARYING(40) NULL', shadow 'PAGE CHARACTER VARYING(20) NULL'"),
                new ShadowCheck("nulls", "nulls_shadow", FAIL,
                        "column 1 differs: production 'ID INTEGER(32) NOT NULL', shadow 'ID INTEGER(32) NULL'")),
                check(owner, "narrow", "narrow_shadow", "nulls", "nulls_shadow", "fewer", "fewer_shadow"));
    }

    @Test
    void aViewOrAShadowTheUserMayNotWriteFailsWithTheDatabasesReason() throws Exception {
        assertEquals(List.of(new ShadowCheck("stock", "stock_shadow", FAIL, "the shadow 'stock_shadow' is a VIEW, not a table")),
                check(owner, "stock", "stock_shadow"));

        try (Connection app = DriverManager.getConnection("jdbc:h2:mem:precheck-unit", "app", "app")) {
            List<ShadowCheck> checks = check(app, "visits", "visits_shadow", "audit", "audit_shadow");
            assertEquals(new ShadowCheck("visits", "visits_shadow", PASS, ""), checks.get(1));
            assertEquals(FAIL, checks.get(0).outcome());
            assertEquals("the shadow does not accept a write (INSERT INTO \"PUBLIC\".\"AUDIT_SHADOW\" (\"WHAT\") SELECT"
                    + " \"WHAT\" FROM \"PUBLIC\".\"AUDIT\" WHERE 1=0): Not enough rights for object"
                    + " \"PUBLIC.AUDIT_SHADOW\"", checks.get(0).reason().split("; SQL statement")[0]);
        }
    }

    @Test
    void aJdbcUrlLosesItsParametersWhichMayHoldAPassword() {
        assertEquals("jdbc:h2:mem:x", ShadowPreCheck.withoutParameters("jdbc:h2:mem:x;PASSWORD=secret"));
        assertEquals("jdbc:postgresql://db:5432/shop",
                ShadowPreCheck.withoutParameters("jdbc:postgresql://db:5432/shop?user=a&password=b"));
    }

    private long rows(String table) throws Exception {
        try (Statement s = owner.createStatement(); var rs = s.executeQuery("SELECT COUNT(*) FROM " + table)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
