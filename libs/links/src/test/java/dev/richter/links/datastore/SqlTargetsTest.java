package dev.richter.links.datastore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every table a statement can write counts as written, in whatever shape it is written: data-modifying {@code WITH}
 * items (corpus bug 44), MySQL's multi-table UPDATE and DELETE, {@code SELECT ... INTO}, sub-statements; a statement
 * whose effects its tables do not show says so; and no reader throws out of {@link DatastoreCall#of}.
 */
class SqlTargetsTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    /** The statements of a corpus {@code .sql} file: its non-comment lines, one statement each. */
    private static List<String> statements(String file) throws Exception {
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(CORPUS.resolve("bugs").resolve(file))) {
            String s = line.strip();
            if (!s.isEmpty() && !s.startsWith("--")) {
                out.add(s.endsWith(";") ? s.substring(0, s.length() - 1) : s);
            }
        }
        return out;
    }

    @Test
    void bug44ADataModifyingWithWritesItsTargetUnderASelectAndUnderAnInsert() throws Exception {
        List<String> sql = statements("44-sql-data-modifying-cte.sql");
        assertEquals(2, sql.size(), "the corpus file's two statements");
        SqlTargets.Tables select = SqlTargets.parse(sql.get(0));
        assertEquals(List.of("stock"), select.written(), "the WITH item's DELETE runs exactly once");
        assertEquals(List.of(), select.read(), "moved is the WITH item's name, no table");
        assertEquals("", select.unknown());
        SqlTargets.Tables insert = SqlTargets.parse(sql.get(1));
        assertEquals(List.of("orders", "stock"), insert.written().stream().sorted().toList());
    }

    @Test
    void bug44OnASpanIsAWriteToStockThatShadowWritesSees() throws Exception {
        String sql = statements("44-sql-data-modifying-cte.sql").get(0);
        DatastoreCall c = DatastoreCall.of(span(Map.of("db.system", "postgresql", "db.statement", sql,
                "db.operation", "SELECT", "db.sql.table", "moved"))).orElseThrow();
        assertTrue(c.write(), "a SELECT with a DELETE in its WITH writes");
        assertEquals(List.of("stock"), c.written());
        assertEquals("", c.problem());
    }

    @Test
    void multiTableWritesAndSelectIntoWriteEveryTableTheyMayChange() {
        assertEquals(List.of("a", "b"), SqlTargets.parse("UPDATE a JOIN b ON a.id = b.id SET b.x = ?").written());
        assertEquals(List.of("a", "b"), SqlTargets.parse("DELETE a, b FROM a JOIN b ON a.id = b.id").written().stream()
                .distinct().sorted().toList());
        SqlTargets.Tables aliased = SqlTargets.parse("DELETE v, s FROM visits v JOIN stock s ON v.sku = s.sku");
        assertEquals(List.of("stock", "visits"), aliased.written().stream().sorted().toList(), "aliases resolved");
        assertEquals(List.of(), aliased.read(), "v and s are aliases, no tables");
        assertEquals(List.of("orders"), SqlTargets.parse("UPDATE orders o SET total = ? FROM prices p WHERE o.sku = p.sku")
                .written(), "PostgreSQL's UPDATE ... FROM writes only its target");
        assertEquals(List.of("archive"), SqlTargets.parse("SELECT * INTO archive FROM orders").written());
        SqlTargets.Tables nested = SqlTargets.parse(
                "INSERT INTO audit (n) SELECT n FROM (WITH d AS (UPDATE stock SET qty = ? RETURNING sku) SELECT sku AS n FROM d) x");
        assertEquals(List.of("audit", "stock"), nested.written().stream().sorted().toList());
        assertEquals(List.of("customers"), SqlTargets.parse("SELECT c.name FROM customers c WHERE c.id = ?").read());
    }

    @Test
    void aProcedureCallAtAnyDepthHasEffectsItsTablesDoNotShow() {
        assertEquals("calls a procedure: refresh", SqlTargets.parse("CALL refresh(?)").unknown());
        DatastoreCall c = DatastoreCall.of(span(Map.of("db.system", "postgresql", "db.statement", "CALL refresh(?)")))
                .orElseThrow();
        assertTrue(c.write());
        assertEquals("calls a procedure: refresh", c.problem(), "a check FAILs a marked call with a problem");
        assertFalse(SqlTargets.parse("SELECT name FROM customers").unknown().length() > 0);
    }

    @Test
    void aSpanNoReaderCanReadIsACallWithAProblemNeverAnException() {
        DatastoreCall c = DatastoreCall.of(span(Map.of("db.system", "postgresql",
                "db.statement", "WITH x AS (DELETE FROM stock RETURNING *) SELEC oops"))).orElseThrow();
        assertTrue(c.problem().startsWith("statement does not parse as SQL"), c.problem());
        assertTrue(c.write(), "unknown counts as a write");
    }

    private static Span span(Map<String, String> attributes) {
        return new Span("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7", "", List.of(), "inventory", "query",
                SpanKind.CLIENT, "", attributes, 0, 1_000_000);
    }
}
