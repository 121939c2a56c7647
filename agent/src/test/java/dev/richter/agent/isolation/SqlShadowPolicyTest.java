package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SqlShadowPolicyTest {
    private static final Shadows SHADOWS = shadows("""
            [{"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"},
             {"kind": "table", "production": "orders", "shadow": "orders_shadow", "service": "shop"},
             {"kind": "schema", "production": "billing", "shadow": "billing_shadow", "service": "shop"}]
            """);
    private final SqlShadowPolicy enforce = new SqlShadowPolicy(SHADOWS, IsolationMode.ENFORCE);

    static Shadows shadows(String json) {
        try {
            return Shadows.parse(new ObjectMapper().readTree(json));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private String rewritten(String sql) {
        ShadowDecision d = enforce.decide(sql, "", "");
        assertSame(ExitDecision.PASS, d.verdict(), d.toString());
        return d.rewritten().orElse(sql);
    }

    @Test
    void everyMappedTableIsReplacedWhereverTheStatementNamesIt() {
        assertEquals("INSERT INTO visits_shadow (page) VALUES ('home')",
                rewritten("INSERT INTO visits (page) VALUES ('home')"));
        assertEquals("SELECT v.page, c.name FROM visits_shadow v JOIN customers c ON v.customer = c.id",
                rewritten("SELECT v.page, c.name FROM visits v JOIN customers c ON v.customer = c.id"));
        assertEquals("SELECT visits_shadow.page FROM visits_shadow WHERE visits_shadow.id IN (SELECT visit FROM orders_shadow)",
                rewritten("SELECT visits.page FROM visits WHERE visits.id IN (SELECT visit FROM orders)"));
        assertEquals("UPDATE shop.visits_shadow SET page = ? WHERE id = ?",
                rewritten("UPDATE shop.visits SET page = ? WHERE id = ?"));
        assertEquals("DELETE FROM \"VISITS_SHADOW\"".toLowerCase(), rewritten("DELETE FROM \"VISITS\"").toLowerCase());
        assertEquals("INSERT INTO orders_shadow SELECT * FROM visits_shadow", rewritten("insert into orders select * from visits"));
        assertEquals("visits_shadow", enforce.decide("SELECT * FROM Visits", "", "").shadowTarget());
    }

    @Test
    void aWriteToATableWithoutAShadowIsRefusedNamingTheTable() {
        for (String sql : new String[] {"INSERT INTO audit (what) VALUES ('x')", "UPDATE audit SET what = 'y'",
                "DELETE FROM audit", "TRUNCATE TABLE audit", "DROP TABLE audit", "CREATE TABLE audit (id INT)",
                "MERGE INTO audit a USING visits v ON a.id = v.id WHEN MATCHED THEN UPDATE SET a.what = v.page",
                "ALTER TABLE audit ADD COLUMN x INT"}) {
            ShadowDecision d = enforce.decide(sql, "", "");
            assertTrue(d.refused(), sql + " -> " + d);
            assertTrue(d.refusal().contains("table 'audit'"), d.refusal());
        }
    }

    @Test
    void readsOfUnmappedTablesAndWritesToShadowTablesPassUntouched() {
        assertEquals(ShadowDecision.UNTOUCHED, enforce.decide("SELECT * FROM customers WHERE id = 1", "", ""));
        ShadowDecision shadowWrite = enforce.decide("INSERT INTO visits_shadow (page) VALUES ('x')", "", "");
        assertFalse(shadowWrite.refused());
        assertEquals(Optional.empty(), shadowWrite.rewritten(), "a shadow table is never rewritten again");
    }

    @Test
    void aStatementThatCannotBeParsedIsRefused() {
        ShadowDecision d = enforce.decide("INSERT INTO visits VALUES (", "", "");
        assertTrue(d.refused());
        assertTrue(d.refusal().contains("cannot be parsed"), d.refusal());
    }

    @Test
    void onAShadowDatabaseItRunsAsItIsAndOnItsProductionOneItIsRefused() {
        ShadowDecision shadow = enforce.decide("INSERT INTO audit VALUES (1)", "BILLING_SHADOW", "PUBLIC");
        assertSame(ExitDecision.PASS, shadow.verdict());
        assertEquals("BILLING_SHADOW", shadow.shadowTarget());
        ShadowDecision production = enforce.decide("SELECT 1", "shop", "BILLING");
        assertTrue(production.refused());
        assertTrue(production.refusal().contains("production database 'BILLING'"), production.refusal());
    }

    @Test
    void reportModeRoutesTheMappedTablesAndRecordsWhatWouldBeRefused() {
        ShadowDecision d = new SqlShadowPolicy(SHADOWS, IsolationMode.REPORT)
                .decide("INSERT INTO audit SELECT * FROM visits", "", "");
        assertInstanceOf(ExitDecision.WouldRefuse.class, d.verdict());
        assertEquals(Optional.of("INSERT INTO audit SELECT * FROM visits_shadow"), d.rewritten());
        assertTrue(((ExitDecision.WouldRefuse) d.verdict()).message().contains("table 'audit'"));
    }

    @Test
    void theAnalysisOfATextIsCachedAndTheCacheIsBounded() {
        SqlShadowPolicy p = new SqlShadowPolicy(SHADOWS, IsolationMode.ENFORCE);
        for (int i = 0; i < SqlShadowPolicy.CACHE_SIZE + 10; i++) {
            p.decide("SELECT " + i + " FROM visits", "", "");
        }
        assertEquals(SqlShadowPolicy.CACHE_SIZE, p.cacheSize());
    }
}
