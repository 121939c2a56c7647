package dev.richter.links.datastore;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import net.sf.jsqlparser.JSQLParserException;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.create.view.CreateView;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.execute.Execute;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.AllTableColumns;
import net.sf.jsqlparser.statement.select.Join;
import net.sf.jsqlparser.statement.select.PlainSelect;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.select.WithItem;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;

/**
 * The tables one SQL statement writes and reads, by a real SQL parser (JSqlParser 5.3). Statements as the
 * OpenTelemetry agent records them are sanitized (literals replaced by {@code ?}), which JSqlParser reads as JDBC
 * parameters.
 *
 * <p>The parse tree is walked whole, by reflection over every field of every JSqlParser node, not by a visitor: a
 * visitor sees only the shapes it was written for (JSqlParser's own {@code TablesNamesFinder} throws {@code
 * ClassCastException} on a data-modifying {@code WITH}, JSqlParser #2478), so a table in a shape nobody foresaw would
 * be silently missing. Written, wherever the statement appears (top level, a {@code WITH} item, a sub-statement):
 * <ul>
 *   <li>the target of every INSERT, UPDATE, DELETE, MERGE, UPSERT and TRUNCATE; for MySQL's multi-table forms
 *       ({@code UPDATE a JOIN b SET ...}, {@code DELETE a, b FROM a JOIN b ...}) every table they join, since which
 *       of them the statement changes is not read from it;</li>
 *   <li>the tables of {@code SELECT ... INTO t};</li>
 *   <li>every table a schema statement names (CREATE TABLE / INDEX / VIEW, ALTER, DROP).</li>
 * </ul>
 * Read: every other table the statement names; the names of its {@code WITH} items are no tables. A statement with
 * effects the parse cannot show has {@link Tables#unknown()} set: a procedure call ({@code CALL}, {@code EXEC}) at
 * any depth, and any top-level statement that is neither a read ({@code SELECT}, {@code VALUES}, {@code SHOW},
 * {@code DESCRIBE}, {@code EXPLAIN}), nor a write above, nor a session statement. PostgreSQL executes a data-modifying
 * {@code WITH} item exactly once whether or not the primary statement reads it (PostgreSQL manual, "Data-Modifying
 * Statements in WITH"), so its target is written even under a {@code SELECT}. Parses are cached by statement text
 * ({@value #CACHE_LIMIT} statements at most, the cache cleared when full): a pre-test repeats the same few statements
 * thousands of times.
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
     * @param unknown why the statement may have effects its tables do not show (e.g. {@code calls a procedure:
     *     refresh}), {@code ""} when it has none
     */
    public record Tables(String operation, List<String> written, List<String> read, String unknown) {
        public Tables {
            written = List.copyOf(written);
            read = List.copyOf(read);
        }

        /** A statement whose effects are all in its tables. */
        public Tables(String operation, List<String> written, List<String> read) {
            this(operation, written, read, "");
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
        if (statement == null) {
            throw new IllegalArgumentException("statement does not parse as SQL (no statement in it)");
        }
        List<Object> nodes = new ArrayList<>();
        try {
            walk(statement, nodes, Collections.newSetFromMap(new IdentityHashMap<>()));
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalArgumentException("statement's parse tree cannot be read whole (" + e + ")");
        }
        Set<String> withNames = new LinkedHashSet<>();
        Map<String, String> aliases = new LinkedHashMap<>();
        Map<String, Table> aliased = new LinkedHashMap<>();
        for (Object n : nodes) {
            if (n instanceof WithItem<?> w && w.getAlias() != null) {
                withNames.add(unquote(w.getAlias().getName()).toLowerCase(Locale.ROOT));
            } else if (n instanceof Table t && t.getAlias() != null) {
                aliases.put(unquote(t.getAlias().getName()).toLowerCase(Locale.ROOT), name(t));
                aliased.put(unquote(t.getAlias().getName()).toLowerCase(Locale.ROOT), t);
            }
        }
        Set<String> all = new LinkedHashSet<>();
        Set<String> written = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (Object n : nodes) {
            if (n instanceof Table t && t.getName() != null && !isWithName(t, withNames)
                    && !(t.getSchemaName() == null && aliased.containsKey(unquote(t.getName()).toLowerCase(Locale.ROOT))
                            && aliased.get(unquote(t.getName()).toLowerCase(Locale.ROOT)) != t)) {
                // every table it names, except WITH item names and aliases named as tables (v of DELETE v FROM visits v)
                all.add(name(t));
            }
            for (Table t : targets(n)) {
                String target = aliases.getOrDefault(unquote(t.getFullyQualifiedName()).toLowerCase(Locale.ROOT), name(t));
                if (!isWithName(t, withNames)) {
                    written.add(target);
                }
            }
            if (n instanceof Execute e) {
                unknown.add("calls a procedure: " + e.getName());
            }
        }
        if (statement instanceof Drop || statement instanceof Alter || statement instanceof CreateTable
                || statement instanceof CreateIndex || statement instanceof CreateView) {
            written.addAll(all);
        } else if (!(statement instanceof Execute) && !knownEffects(statement)) {
            unknown.add("a " + statement.getClass().getSimpleName() + " statement, whose effects are not read");
        }
        List<String> read = new ArrayList<>();
        for (String t : all) {
            if (!written.contains(t)) {
                read.add(t);
            }
        }
        return new Tables(verb(sql), new ArrayList<>(written), read, String.join("; ", unknown));
    }

    /** Top-level statements whose effects are their tables: reads, the writes {@link #targets} knows, DDL, session. */
    private static boolean knownEffects(Statement s) {
        if (s instanceof Select || s instanceof Insert || s instanceof Update || s instanceof Delete
                || s instanceof Merge || s instanceof Upsert || s instanceof Truncate) {
            return true;
        }
        String verb = verb(s.toString());
        return READ_OPERATIONS.contains(verb) && !verb.equals("WITH") || CONTROL_OPERATIONS.contains(verb)
                || SCHEMA_OPERATIONS.contains(verb);
    }

    private static boolean isWithName(Table t, Set<String> withNames) {
        return t.getSchemaName() == null && withNames.contains(unquote(t.getName()).toLowerCase(Locale.ROOT));
    }

    private static String name(Table t) {
        return unquote(t.getFullyQualifiedName());
    }

    /** The tables node {@code n} writes, when it is a data-modifying statement or {@code SELECT ... INTO}. */
    private static List<Table> targets(Object n) {
        List<Table> out = new ArrayList<>();
        switch (n) {
            case Insert i -> out.add(i.getTable());
            case Update u -> {
                out.add(u.getTable());
                joined(u.getStartJoins(), out);
            }
            case Delete d -> {
                out.add(d.getTable());
                if (d.getTables() != null && !d.getTables().isEmpty()) {
                    out.addAll(d.getTables());
                    joined(d.getJoins(), out);
                }
            }
            case Merge m -> out.add(m.getTable());
            case Upsert u -> out.add(u.getTable());
            case Truncate t -> {
                if (t.getTables() != null) {
                    out.addAll(t.getTables());
                }
                out.add(t.getTable());
            }
            case PlainSelect p -> {
                if (p.getIntoTables() != null) {
                    out.addAll(p.getIntoTables());
                }
            }
            default -> { }
        }
        out.removeIf(t -> t == null || t.getName() == null);
        return out;
    }

    private static void joined(List<Join> joins, List<Table> out) {
        if (joins != null) {
            for (Join j : joins) {
                if (j.getFromItem() instanceof Table t) {
                    out.add(t);
                }
            }
        }
    }

    /**
     * Every JSqlParser node reachable from {@code node} through its fields (collections, maps and arrays
     * included), each once, in the order met; the parser's own token tree ({@code net.sf.jsqlparser.parser}), enum
     * constants and the qualifier of a column ({@code c} of {@code c.name}: an alias, or a table the statement names
     * where it reads it) are not followed.
     */
    private static void walk(Object node, List<Object> out, Set<Object> seen) throws ReflectiveOperationException {
        if (node == null || !seen.add(node)) {
            return;
        }
        if (node instanceof Collection<?> c) {
            for (Object o : c) {
                walk(o, out, seen);
            }
            return;
        }
        if (node instanceof Map<?, ?> m) {
            for (Map.Entry<?, ?> e : m.entrySet()) {
                walk(e.getKey(), out, seen);
                walk(e.getValue(), out, seen);
            }
            return;
        }
        Class<?> type = node.getClass();
        if (type.isArray()) {
            if (!type.getComponentType().isPrimitive()) {
                for (int i = 0; i < Array.getLength(node); i++) {
                    walk(Array.get(node, i), out, seen);
                }
            }
            return;
        }
        String name = type.getName();
        if (!name.startsWith("net.sf.jsqlparser.") || name.startsWith("net.sf.jsqlparser.parser.") || type.isEnum()) {
            return;
        }
        out.add(node);
        // a column's qualifier ("c" of c.name, of c.*) is an alias or a table named elsewhere in the statement
        boolean qualified = node instanceof Column || node instanceof AllTableColumns;
        for (Class<?> k = type; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Field f : k.getDeclaredFields()) {
                if (Modifier.isStatic(f.getModifiers()) || f.getType().isPrimitive() || f.getType() == String.class
                        || qualified && f.getType() == Table.class) {
                    continue;
                }
                f.setAccessible(true);
                walk(f.get(node), out, seen);
            }
        }
    }
}
