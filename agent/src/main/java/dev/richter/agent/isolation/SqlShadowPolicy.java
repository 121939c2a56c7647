package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.sdk.Backports;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.alter.Alter;
import net.sf.jsqlparser.statement.create.index.CreateIndex;
import net.sf.jsqlparser.statement.create.table.CreateTable;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.drop.Drop;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.merge.Merge;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.statement.truncate.Truncate;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.upsert.Upsert;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * The isolation's rule for one marked SQL statement (DESIGN.md "Isolation without code changes"), over the {@link
 * Shadows} of one configuration:
 * <ol>
 *   <li>on a connection to a shadow database or schema ({@code kind: schema}) it runs as it is;</li>
 *   <li>on a connection to a production database or schema that has a shadow it is refused: the connection was taken
 *       unmarked (take it while marked, and it is the shadow's);</li>
 *   <li>else ({@code kind: table}) it is parsed (JSqlParser 4.9, the last for Java 8, relocated into the extension
 *       jar) and every mapped table
 *       it names, wherever (targets, {@code FROM}, joins, sub-queries, column qualifiers), is replaced by its shadow;
 *       a statement that writes ({@code INSERT}, {@code UPDATE}, {@code DELETE}, {@code MERGE}, {@code UPSERT},
 *       {@code TRUNCATE}, DDL, and any statement that is not a {@code SELECT}) to a table that has no shadow and is
 *       no shadow itself is refused, naming the table; one that cannot be parsed is refused (its tables are
 *       unknown); a read of unmapped tables runs as it is (reference data).</li>
 * </ol>
 * In {@link IsolationMode#REPORT} a refusal becomes a {@link ExitDecision.WouldRefuse}: the statement runs, with its
 * mapped tables still replaced. The parse of a SQL text is cached ({@value #CACHE_SIZE} texts, least recently used
 * out); one instance per configuration, thread-safe.
 */
public final class SqlShadowPolicy {
    /** How many SQL texts' analyses are kept. */
    static final int CACHE_SIZE = 1024;

    private final Shadows shadows;
    private final IsolationMode mode;
    private final Map<String, Analysis> cache = Collections.synchronizedMap(new LinkedHashMap<String, Analysis>(64, 0.75f,
            true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Analysis> eldest) {
            return size() > CACHE_SIZE;
        }
    });

    /**
     * What a SQL text is, once parsed.
     *
     * @param rewritten      the text with the shadow tables, empty when it names no mapped table
     * @param shadowTargets  the shadow tables it goes to
     * @param unmappedWrites tables it writes that have no shadow, as written in the SQL
     * @param parseError     why it could not be parsed, {@code ""} when it was
     */
    static final class Analysis {
        private final Optional<String> rewritten;
        private final List<String> shadowTargets;
        private final List<String> unmappedWrites;
        private final String parseError;

        Analysis(Optional<String> rewritten, List<String> shadowTargets, List<String> unmappedWrites,
                 String parseError) {
            this.rewritten = rewritten;
            this.shadowTargets = shadowTargets;
            this.unmappedWrites = unmappedWrites;
            this.parseError = parseError;
        }

        Optional<String> rewritten() {
            return rewritten;
        }

        List<String> shadowTargets() {
            return shadowTargets;
        }

        List<String> unmappedWrites() {
            return unmappedWrites;
        }

        String parseError() {
            return parseError;
        }
    }

    public SqlShadowPolicy(Shadows shadows, IsolationMode mode) {
        this.shadows = shadows;
        this.mode = mode;
    }

    /**
     * @param sql     a marked statement
     * @param catalog its connection's catalog, {@code ""} when unknown
     * @param schema  its connection's schema, {@code ""} when unknown
     */
    public ShadowDecision decide(String sql, String catalog, String schema) {
        for (String name : Arrays.asList(catalog, schema)) {
            if (!name.isEmpty() && shadows.isShadowSchema(name)) {
                return new ShadowDecision(Optional.empty(), name, ExitDecision.PASS);
            }
        }
        for (String name : Arrays.asList(catalog, schema)) {
            Optional<String> shadow = name.isEmpty() ? Optional.empty() : shadows.shadowSchema(name);
            if (shadow.isPresent()) {
                return refuse(new ShadowDecision(Optional.empty(), "", ExitDecision.PASS), "database " + name,
                        "the connection is to production database '" + name + "', whose shadow is '" + shadow.get()
                                + "': a marked statement runs only on a connection taken while marked");
            }
        }
        Analysis a = cache.computeIfAbsent(sql, this::analyse);
        ShadowDecision routed = a.rewritten().isPresent()
                ? ShadowDecision.shadow(a.rewritten().get(), String.join(",", a.shadowTargets()))
                : ShadowDecision.UNTOUCHED;
        if (!a.parseError().isEmpty()) {
            return refuse(routed, "sql", "the marked statement cannot be parsed, so its tables are unknown ("
                    + a.parseError() + ")");
        }
        if (!a.unmappedWrites().isEmpty()) {
            String tables = String.join("', '", a.unmappedWrites());
            return refuse(routed, "table " + String.join(",", a.unmappedWrites()), "a marked write to table '" + tables
                    + "', which has no shadow table (kind table) and is none");
        }
        return routed;
    }

    private ShadowDecision refuse(ShadowDecision routed, String exit, String reason) {
        return mode == IsolationMode.ENFORCE
                ? ShadowDecision.refuse(exit, reason)
                : new ShadowDecision(routed.rewritten(), routed.shadowTarget(), new ExitDecision.WouldRefuse(exit, reason));
    }

    /** How many SQL texts' analyses are cached now. */
    int cacheSize() {
        return cache.size();
    }

    /** Parses and rewrites one SQL text; never throws. */
    Analysis analyse(String sql) {
        Statement statement;
        try {
            // on this thread (parse(String) would start an executor thread per statement for its timeout)
            statement = CCJSqlParserUtil.newParser(sql).Statement();
        } catch (Exception | StackOverflowError e) {
            String why = e.getMessage() == null ? e.toString() : e.getMessage().split("\\r\\n|\\r|\\n", 2)[0];
            return new Analysis(Optional.empty(), Collections.emptyList(), Collections.emptyList(), why);
        }
        List<Table> written = targets(statement);
        Map<Table, Boolean> tables = new IdentityHashMap<>();
        written.forEach(t -> tables.put(t, true));
        List<Column> qualified = new ArrayList<>();
        try {
            new Finder(tables, qualified).getTables(statement);
        } catch (RuntimeException notSupported) {
            // the finder does not walk every DDL statement; its targets are known, and nothing else is read
            if (!(statement instanceof Select) && written.isEmpty()) {
                return new Analysis(Optional.empty(), Collections.emptyList(), Collections.emptyList(),
                        "no tables found in " + statement.getClass().getSimpleName());
            }
        }
        Set<String> targets = new LinkedHashSet<>();
        Set<String> unmapped = new LinkedHashSet<>();
        Map<String, String> renamed = new LinkedHashMap<>();
        for (Table t : tables.keySet()) {
            String name = unquote(t.getName());
            Optional<String> shadow = shadows.shadowTable(name);
            if (shadow.isPresent()) {
                renamed.put(name.toLowerCase(Locale.ROOT), shadow.get());
                targets.add(shadow.get());
                t.setName(requote(t.getName(), shadow.get()));
            }
        }
        for (Table t : written) {
            String name = unquote(t.getName());
            if (!shadows.shadowTable(name).isPresent() && !shadows.isShadowTable(name)) {
                unmapped.add(name);
            }
        }
        if (!(statement instanceof Select) && written.isEmpty()) {
            // a write whose target this rule does not know (e.g. CALL, GRANT): every table it names counts as written
            for (Table t : tables.keySet()) {
                String name = unquote(t.getName());
                if (!shadows.isShadowTable(name)) {
                    unmapped.add(name);
                }
            }
            if (tables.isEmpty()) {
                return new Analysis(Optional.empty(), Collections.emptyList(), Collections.emptyList(), "a "
                        + statement.getClass().getSimpleName() + " statement names no table to shadow");
            }
        }
        for (Column c : qualified) {
            Table q = c.getTable();
            String shadow = renamed.get(unquote(q.getName()).toLowerCase(Locale.ROOT));
            if (shadow != null && !tables.containsKey(q)) {
                q.setName(requote(q.getName(), shadow));
            }
        }
        return new Analysis(targets.isEmpty() ? Optional.empty() : Optional.of(statement.toString()),
                Backports.listCopy(targets), Backports.listCopy(unmapped), "");
    }

    /** The tables a statement writes, by its kind; none for a {@code SELECT} or a kind not listed. */
    private static List<Table> targets(Statement s) {
        List<Table> out = new ArrayList<>();
        if (s instanceof Insert) {
            out.add(((Insert) s).getTable());
        } else if (s instanceof Update) {
            out.add(((Update) s).getTable());
        } else if (s instanceof Delete) {
            Delete d = (Delete) s;
            if (d.getTables() != null && !d.getTables().isEmpty()) {
                out.addAll(d.getTables());
            } else {
                out.add(d.getTable());
            }
        } else if (s instanceof Merge) {
            out.add(((Merge) s).getTable());
        } else if (s instanceof Upsert) {
            out.add(((Upsert) s).getTable());
        } else if (s instanceof Truncate) {
            // JSqlParser 4.9 reads one table per TRUNCATE
            out.add(((Truncate) s).getTable());
        } else if (s instanceof CreateTable) {
            out.add(((CreateTable) s).getTable());
        } else if (s instanceof CreateIndex) {
            out.add(((CreateIndex) s).getTable());
        } else if (s instanceof Alter) {
            out.add(((Alter) s).getTable());
        } else if (s instanceof Drop) {
            out.add(((Drop) s).getName());
        }
        out.removeIf(t -> t == null);
        return out;
    }

    private static String unquote(String name) {
        if (name.length() >= 2 && (name.charAt(0) == '"' || name.charAt(0) == '`' || name.charAt(0) == '[')) {
            return name.substring(1, name.length() - 1);
        }
        return name;
    }

    /** {@code shadow}, quoted as {@code original} was. */
    private static String requote(String original, String shadow) {
        if (original.length() >= 2 && (original.charAt(0) == '"' || original.charAt(0) == '`')) {
            return original.charAt(0) + shadow + original.charAt(0);
        }
        if (original.startsWith("[")) {
            return "[" + shadow + "]";
        }
        return shadow;
    }

    /** Collects every table node the statement names, and every column qualified by a table name. */
    private static final class Finder extends TablesNamesFinder {
        private final Map<Table, Boolean> tables;
        private final List<Column> qualified;

        Finder(Map<Table, Boolean> tables, List<Column> qualified) {
            this.tables = tables;
            this.qualified = qualified;
        }

        @Override
        public void visit(Table table) {
            tables.put(table, true);
            super.visit(table);
        }

        @Override
        public void visit(Column column) {
            if (column.getTable() != null && column.getTable().getName() != null) {
                qualified.add(column);
            }
            super.visit(column);
        }
    }
}
