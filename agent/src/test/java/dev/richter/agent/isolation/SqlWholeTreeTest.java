package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The marked-SQL rule refuses what it does not fully read, for the whole kind: every table a statement can write
 * counts as written wherever it is written (corpus bug 44's data-modifying {@code WITH}, MySQL's multi-table UPDATE
 * and DELETE, {@code SELECT ... INTO}), a statement with effects its tables do not show (a procedure call) is
 * refused, the statements drivers issue on their own pass, and a rewrite is checked again from its text.
 */
class SqlWholeTreeTest {
    private static final Shadows SHADOWS = SqlShadowPolicyTest.shadows("""
            [{"kind": "table", "production": "orders", "shadow": "orders_shadow", "service": "shop"},
             {"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"}]
            """);
    private final SqlShadowPolicy enforce = new SqlShadowPolicy(SHADOWS, IsolationMode.ENFORCE);

    private static List<String> corpusStatements(String file) throws Exception {
        List<String> out = new ArrayList<>();
        Path root = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
        for (String line : Files.readAllLines(root.resolve("bugs").resolve(file))) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("--")) {
                out.add(s.endsWith(";") ? s.substring(0, s.length() - 1) : s);
            }
        }
        return out;
    }

    @Test
    void bug44ADataModifyingWithNeverReachesProductionStock() throws Exception {
        List<String> statements = corpusStatements("44-sql-data-modifying-cte.sql");
        assertEquals(2, statements.size());
        for (String sql : statements) {
            ShadowDecision d = enforce.decide(sql, "", "");
            assertTrue(d.refused(), sql + " -> " + d);
            assertFalse(d.rewritten().isPresent(), "nothing is sent: " + d);
        }
    }

    @Test
    void everyTableAStatementCanWriteCountsAsWritten() {
        for (String sql : new String[] {
                "UPDATE visits v JOIN stock s ON v.sku = s.sku SET s.qty = ?",
                "DELETE v, s FROM visits v JOIN stock s ON v.sku = s.sku",
                "SELECT * INTO stock_copy FROM orders",
                "INSERT INTO orders (sku) SELECT sku FROM (SELECT sku FROM visits) x WHERE EXISTS (SELECT 1 FROM stock)"
                        + " RETURNING id"}) {
            ShadowDecision d = enforce.decide(sql, "", "");
            if (sql.startsWith("INSERT")) {
                assertSame(ExitDecision.PASS, d.verdict(), "stock is only read: " + d);
                assertEquals("orders_shadow,visits_shadow", d.shadowTarget());
            } else {
                assertTrue(d.refused(), sql + " -> " + d);
                assertTrue(d.refusal().contains("stock"), d.refusal());
            }
        }
    }

    @Test
    void aProcedureCallIsRefusedWhereverItIsBecauseItsWritesAreUnknown() {
        ShadowDecision d = enforce.decide("CALL refresh_totals(?)", "", "");
        assertTrue(d.refused(), d.toString());
        assertTrue(d.refusal().contains("it calls a procedure (refresh_totals), whose writes are unknown"), d.refusal());
    }

    @Test
    void theStatementsDriversIssueOnTheirOwnPassUnparsed() {
        for (String sql : new String[] {"CALL CURRENT_SCHEMA", "SET extra_float_digits = 3",
                "SET application_name = 'PostgreSQL JDBC Driver'", "SET autocommit=1", "SET NAMES utf8mb4",
                "COMMIT", "ROLLBACK", "SAVEPOINT s1", "RELEASE SAVEPOINT s1", "DISCARD ALL", "SHOW search_path",
                "/* ping */ SELECT 1", "SELECT 1 FROM DUAL", "VALUES 1", "SELECT current_schema()",
                "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED"}) {
            ShadowDecision d = enforce.decide(sql, "", "");
            assertSame(ExitDecision.PASS, d.verdict(), sql + " -> " + d);
            assertFalse(d.rewritten().isPresent(), sql);
        }
        for (String sql : new String[] {"SET SCHEMA prod", "SET search_path TO prod", "USE prod",
                "SET GLOBAL max_connections = 10", "SET @@GLOBAL.sql_mode = ''"}) {
            assertTrue(enforce.decide(sql, "", "").refused(), sql);
        }
    }

    @Test
    void sequenceCallsPassAsReadsOfNoTable() {
        for (String sql : new String[] {"SELECT nextval('orders_id_seq')", "VALUES NEXT VALUE FOR orders_seq",
                "CALL NEXT VALUE FOR orders_seq"}) {
            assertSame(ExitDecision.PASS, enforce.decide(sql, "", "").verdict(), sql);
        }
    }

    @Test
    void aRewriteIsCheckedAgainFromItsText() {
        assertEquals("", enforce.productionLeft("INSERT INTO orders_shadow (sku) SELECT sku FROM visits_shadow"));
        assertEquals("the rewritten statement still names production table 'visits'",
                enforce.productionLeft("INSERT INTO orders_shadow (sku) SELECT sku FROM visits"));
        assertTrue(enforce.productionLeft("INSERT INTO orders_shadow (").startsWith(
                "the rewritten statement does not parse again"));
    }
}
