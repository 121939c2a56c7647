package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.ArrayList;
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
 *   <li>else ({@code kind: table}) it is parsed (JSqlParser, relocated into the extension jar) and every mapped table
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
    private final Map<String, Analysis> cache = Collections.synchronizedMap(new LinkedHashMap<>(64, 0.75f, true) {
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
    record Analysis(Optional<String> rewritten, List<String> shadowTargets, List<String> unmappedWrites,
                    String parseError) {}

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
        for (String name : List.of(catalog, schema)) {
            if (!name.isEmpty() && shadows.isShadowSchema(name)) {
                return new ShadowDecision(Optional.empty(), name, ExitDecision.PASS);
            }
        }
        for (String name : List.of(catalog, schema)) {
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
            String why = e.getMessage() == null ? e.toString() : e.getMessage().lines().findFirst().orElse("");
            return new Analysis(Optional.empty(), List.of(), List.of(), why);
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
                return new Analysis(Optional.empty(), List.of(), List.of(), "no tables found in "
                        + statement.getClass().getSimpleName());
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
            if (shadows.shadowTable(name).isEmpty() && !shadows.isShadowTable(name)) {
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
                return new Analysis(Optional.empty(), List.of(), List.of(), "a "
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
                List.copyOf(targets), List.copyOf(unmapped), "");
    }

    /** The tables a statement writes, by its kind; none for a {@code SELECT} or a kind not listed. */
    private static List<Table> targets(Statement s) {
        List<Table> out = new ArrayList<>();
        switch (s) {
            case Insert i -> out.add(i.getTable());
            case Update u -> {
                out.add(u.getTable());
            }
            case Delete d -> {
                if (d.getTables() != null && !d.getTables().isEmpty()) {
                    out.addAll(d.getTables());
                } else {
                    out.add(d.getTable());
                }
            }
            case Merge m -> out.add(m.getTable());
            case Upsert u -> out.add(u.getTable());
            case Truncate t -> {
                if (t.getTables() != null && !t.getTables().isEmpty()) {
                    out.addAll(t.getTables());
                } else {
                    out.add(t.getTable());
                }
            }
            case CreateTable c -> out.add(c.getTable());
            case CreateIndex c -> out.add(c.getTable());
            case Alter a -> out.add(a.getTable());
            case Drop d -> out.add(d.getName());
            default -> { }
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
    private static final class Finder extends TablesNamesFinder<Void> {
        private final Map<Table, Boolean> tables;
        private final List<Column> qualified;

        Finder(Map<Table, Boolean> tables, List<Column> qualified) {
            this.tables = tables;
            this.qualified = qualified;
        }

        @Override
        public <S> Void visit(Table table, S context) {
            tables.put(table, true);
            return super.visit(table, context);
        }

        @Override
        public <S> Void visit(Column column, S context) {
            if (column.getTable() != null && column.getTable().getName() != null) {
                qualified.add(column);
            }
            return super.visit(column, context);
        }
    }
}
