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
             {"kind": "table", "production": "visits", "shadow": "visits_shadow", "service": "shop"},
             {"kind": "schema", "production": "billing", "shadow": "billing_shadow", "service": "shop"}]
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

    /**
     * The leak matrix's find (bench/isolation-leaks.sh): on a connection switched to its shadow schema, a statement
     * naming the production schema outright wrote to production. A qualifier naming a production database or schema
     * that has a shadow is requalified to the shadow on any connection, and a write qualified by any other is refused.
     */
    @Test
    void aTableQualifiedByAProductionSchemaGoesToItsShadowOnEveryConnection() {
        for (String connectionSchema : new String[] {"billing_shadow", ""}) {
            ShadowDecision d = enforce.decide("INSERT INTO billing.invoices (n) VALUES (?)", "", connectionSchema);
            assertSame(ExitDecision.PASS, d.verdict(), connectionSchema + ": " + d);
            assertEquals("INSERT INTO billing_shadow.invoices (n) VALUES (?)", d.rewritten().orElse(""), connectionSchema);
            assertEquals("billing_shadow.invoices", d.shadowTarget());
            ShadowDecision threePart = enforce.decide("UPDATE ledger.billing.invoices SET n = ? WHERE billing.invoices.id = ?",
                    "", connectionSchema);
            assertSame(ExitDecision.PASS, threePart.verdict(), threePart.toString());
            assertFalse(threePart.rewritten().orElse("").matches("(?i).*\\bbilling\\.invoices.*"), threePart.toString());
        }
        ShadowDecision unqualified = enforce.decide("INSERT INTO invoices (n) VALUES (?)", "", "billing_shadow");
        assertSame(ExitDecision.PASS, unqualified.verdict());
        assertFalse(unqualified.rewritten().isPresent(), "the shadow schema's own table");
        assertEquals("billing_shadow", unqualified.shadowTarget());
        ShadowDecision other = enforce.decide("INSERT INTO audit_db.log (n) VALUES (?)", "", "billing_shadow");
        assertTrue(other.refused(), other.toString());
        assertTrue(other.refusal().contains("audit_db.log"), other.refusal());
        assertTrue(enforce.decide("CALL billing.settle()", "", "billing_shadow").refused(), "a procedure is refused there too");
        assertTrue(enforce.decide("INSERT INTO invoices (n) VALUES (?)", "", "billing").refused(),
                "a production connection is refused as before");
    }

    @Test
    void aRewriteIsCheckedAgainFromItsText() {
        assertEquals("", enforce.productionLeft("INSERT INTO orders_shadow (sku) SELECT sku FROM visits_shadow"));
        assertEquals("the rewritten statement still names production table 'visits'",
                enforce.productionLeft("INSERT INTO orders_shadow (sku) SELECT sku FROM visits"));
        assertEquals("the rewritten statement still names production database or schema 'billing'",
                enforce.productionLeft("INSERT INTO billing_shadow.invoices SELECT * FROM billing.invoices"));
        assertTrue(enforce.productionLeft("INSERT INTO orders_shadow (").startsWith(
                "the rewritten statement does not parse again"));
    }
}
