package dev.richter.links.datastore;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.view.CreateView;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * The tables one SQL statement writes and reads, by a real SQL parser (JSqlParser 5.3, the parser the agent
 * extension's shadow rewrite uses). Statements as the OpenTelemetry agent records them are sanitized (literals
 * replaced by {@code ?}), which JSqlParser reads as JDBC parameters.
 *
 * <p>Written: the target table of INSERT, UPDATE, DELETE, MERGE, UPSERT, TRUNCATE and of DDL (CREATE TABLE / INDEX /
 * VIEW, ALTER, DROP); read: every other table the statement names (subqueries, joins, {@code INSERT ... SELECT}
 * sources). A statement that names no table (e.g. {@code SET SCHEMA x}, {@code CALL f(?)}, {@code SHOW TABLES})
 * has none. Parses are cached by statement text ({@value #CACHE_LIMIT} statements at most, the cache cleared when
 * full): a pre-test repeats the same few statements thousands of times.
 */
public final class SqlTargets {
    /** Statements whose parse is cached. */
    static final int CACHE_LIMIT = 2_048;
    /** SQL verbs (first keyword, upper case) that change data or schema. */
    public static final Set<String> WRITE_OPERATIONS = Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "UPSERT",
            "REPLACE", "TRUNCATE", "CREATE", "ALTER", "DROP", "RENAME", "COMMENT", "GRANT", "REVOKE");
    /**
     * Schema statements (DDL: CREATE, ALTER, DROP, TRUNCATE, RENAME, COMMENT) and privilege statements (GRANT,
     * REVOKE): what an application runs at boot (Flyway, Liquibase, {@code schema.sql}, Hibernate's
     * {@code ddl-auto}), not its traffic. They are writes, but no exit ({@link #schema}).
     */
    public static final Set<String> SCHEMA_OPERATIONS = Set.of("CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME",
            "COMMENT", "GRANT", "REVOKE");
    /** SQL verbs that only read. Any verb in neither set counts as a write (nothing proves it does not write). */
    public static final Set<String> READ_OPERATIONS = Set.of("SELECT", "WITH", "SHOW", "EXPLAIN", "DESCRIBE", "DESC",
            "VALUES", "TABLE");

    /** Session and transaction verbs: they touch no table's data. */
    public static final Set<String> CONTROL_OPERATIONS = Set.of("SET", "COMMIT", "ROLLBACK", "BEGIN", "START",
            "SAVEPOINT", "RELEASE", "USE", "RESET");

    private static final Map<String, Tables> CACHE = new ConcurrentHashMap<>();

    private SqlTargets() {}

    /**
     * A parsed statement.
     *
     * @param operation the statement's verb, upper case (e.g. {@code INSERT}, {@code SELECT})
     * @param written tables written, as named (schema-qualified when the statement qualifies them, quotes removed)
     * @param read tables read only
     */
    public record Tables(String operation, List<String> written, List<String> read) {
        public Tables {
            written = List.copyOf(written);
            read = List.copyOf(read);
        }
    }

    /**
     * Parses {@code sql}.
     *
     * @throws IllegalArgumentException naming the parser's complaint in a sentence when JSqlParser cannot read it
     */
    public static Tables parse(String sql) {
        Tables cached = CACHE.get(sql);
        if (cached != null) {
            return cached;
        }
        Tables parsed = parseUncached(sql);
        if (CACHE.size() >= CACHE_LIMIT) {
            CACHE.clear();
        }
        CACHE.put(sql, parsed);
        return parsed;
    }

    /** The first keyword of {@code sql}, upper case ({@code ""} for a blank statement). */
    public static String verb(String sql) {
        String s = sql.strip();
        int end = 0;
        while (end < s.length() && Character.isLetter(s.charAt(end))) {
            end++;
        }
        return s.substring(0, end).toUpperCase(Locale.ROOT);
    }

    /**
     * True when {@code operation} (a verb, any case) may change data: one of {@link #WRITE_OPERATIONS}, or any verb
     * in neither {@link #READ_OPERATIONS} nor {@link #CONTROL_OPERATIONS} (e.g. {@code CALL}).
     */
    public static boolean writes(String operation) {
        String op = operation.strip().toUpperCase(Locale.ROOT);
        return WRITE_OPERATIONS.contains(op) || !READ_OPERATIONS.contains(op) && !CONTROL_OPERATIONS.contains(op);
    }

    /**
     * True when {@code operation} (a verb or the agent's {@code db.operation}, e.g. {@code CREATE TABLE}; any case)
     * starts with one of {@link #SCHEMA_OPERATIONS}. Decided by the statement, never by when it ran.
     */
    public static boolean schema(String operation) {
        return SCHEMA_OPERATIONS.contains(verb(operation));
    }

    /** {@code name} without identifier quotes ({@code "x"}, {@code `x`}, {@code [x]}) on any of its dotted parts. */
    public static String unquote(String name) {
        StringBuilder b = new StringBuilder(name.length());
        for (char c : name.strip().toCharArray()) {
            if (c != '"' && c != '`' && c != '[' && c != ']') {
                b.append(c);
            }
        }
        return b.toString();
    }

    private static Tables parseUncached(String sql) {
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(sql);
        } catch (JSQLParserException | RuntimeException e) {
            String why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage().lines().findFirst().orElse("");
            // the parser's own sentence, without its exception class ("net.sf.jsqlparser.parser.ParseException: ...")
            throw new IllegalArgumentException("statement does not parse as SQL ("
                    + why.replaceFirst("^([a-zA-Z_$][\\w$]*\\.)+[A-Z][\\w$]*: ", "").strip() + ")");
        }
        Set<String> all = new LinkedHashSet<>();
        try {
            for (String t : new TablesNamesFinder<Void>().getTables(statement)) {
                all.add(unquote(t));
            }
        } catch (UnsupportedOperationException namesNoTable) {
            // CALL, SET, SHOW...: the finder visits no table of these
        }
        Set<String> written = new LinkedHashSet<>();
        for (Table t : targets(statement)) {
            written.add(unquote(t.getFullyQualifiedName()));
        }
        if (statement instanceof Drop || statement instanceof Alter || statement instanceof CreateTable
                || statement instanceof CreateIndex || statement instanceof CreateView) {
            written.addAll(all);
        }
        List<String> read = new ArrayList<>();
        for (String t : all) {
            if (!written.contains(t)) {
                read.add(t);
            }
        }
        return new Tables(verb(sql), new ArrayList<>(written), read);
    }

    private static List<Table> targets(Statement s) {
        Table t = switch (s) {
            case Insert i -> i.getTable();
            case Update u -> u.getTable();
            case Delete d -> d.getTable();
            case Merge m -> m.getTable();
            case Upsert u -> u.getTable();
            case Truncate t2 -> t2.getTable();
            case CreateTable c -> c.getTable();
            case Drop d -> d.getName();
            case Alter a -> a.getTable();
            default -> null;
        };
        return t == null ? List.of() : List.of(t);
    }
}
