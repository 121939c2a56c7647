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
import net.sf.jsqlparser.statement.select.Select;

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
        String onShadow = "";
        for (String name : Arrays.asList(catalog, schema)) {
            if (!name.isEmpty() && shadows.isShadowSchema(name)) {
                onShadow = name;
            }
        }
        for (String name : Arrays.asList(catalog, schema)) {
            if (!onShadow.isEmpty()) {
                break;
            }
            Optional<String> shadow = name.isEmpty() ? Optional.empty() : shadows.shadowSchema(name);
            if (shadow.isPresent()) {
                return refuse(new ShadowDecision(Optional.empty(), "", ExitDecision.PASS), "database " + name,
                        "the connection is to production database '" + name + "', whose shadow is '" + shadow.get()
                                + "': a marked statement runs only on a connection taken while marked");
            }
        }
        boolean shadowConnection = !onShadow.isEmpty();
        Analysis a = cache.computeIfAbsent((shadowConnection ? "shadow\u0000" : "\u0000") + sql,
                key -> analyse(sql, shadowConnection));
        ShadowDecision routed = a.rewritten().isPresent()
                ? ShadowDecision.shadow(a.rewritten().get(), String.join(",", a.shadowTargets()))
                : shadowConnection ? new ShadowDecision(Optional.<String>empty(), onShadow, ExitDecision.PASS)
                : ShadowDecision.UNTOUCHED;
        if (!a.parseError().isEmpty()) {
            return refuse(routed, "sql", a.parseError());
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

    /**
     * Parses and rewrites one SQL text; never throws. The driver statements that change no table ({@link
     * DriverStatements}) run as they are, unparsed. Else the statement's whole parse tree is read ({@link
     * SqlEffects}); one with effects its tables do not show (a procedure call, an unknown kind) is refused with that
     * reason; every mapped table it names is replaced by its shadow; and the rewritten text is checked a second,
     * independent way: parsed again from its text and read whole again, it must name no mapped production table.
     */
    Analysis analyse(String sql) {
        return analyse(sql, false);
    }

    /**
     * {@link #analyse(String)} for a connection whose catalog or schema is {@code onShadowConnection} a shadow one
     * ({@code kind: schema}): there its unqualified tables are the shadow's and are not renamed, but a table
     * qualified by a production database or schema that has a shadow is requalified to the shadow, on any
     * connection, and a write qualified by any other is refused like any unmapped write.
     */
    Analysis analyse(String sql, boolean onShadowConnection) {
        if (DriverStatements.sideEffectFree(sql)) {
            return new Analysis(Optional.<String>empty(), Collections.<String>emptyList(),
                    Collections.<String>emptyList(), "");
        }
        Statement statement;
        try {
            statement = parse(sql);
        } catch (Exception | StackOverflowError e) {
            return error("the marked statement cannot be parsed, so its tables are unknown (" + firstLine(e) + ")");
        }
        SqlEffects effects;
        try {
            effects = SqlEffects.of(statement);
        } catch (IllegalStateException e) {
            return error("the marked statement's tables are unknown: " + e.getMessage());
        }
        if (!effects.unknown.isEmpty()) {
            return error("the marked statement may write more than its tables show: "
                    + String.join("; ", effects.unknown));
        }
        Set<String> targets = new LinkedHashSet<>();
        Set<String> unmapped = new LinkedHashSet<>();
        Map<String, String> renamed = new LinkedHashMap<>();
        Set<Table> seen = Collections.newSetFromMap(new IdentityHashMap<Table, Boolean>());
        Set<Table> inShadowSchema = Collections.newSetFromMap(new IdentityHashMap<Table, Boolean>());
        for (Table t : effects.tables) {
            seen.add(t);
            String qualified = requalify(t);
            if (!qualified.isEmpty()) {
                targets.add(qualified);
            }
            if (qualifier(t).isEmpty() ? onShadowConnection : shadows.isShadowSchema(qualifier(t))) {
                inShadowSchema.add(t);
                continue;
            }
            String name = unquote(t.getName());
            Optional<String> shadow = shadows.shadowTable(name);
            if (shadow.isPresent()) {
                renamed.put(name.toLowerCase(Locale.ROOT), shadow.get());
                targets.add(shadow.get());
                t.setName(requote(t.getName(), shadow.get()));
            }
        }
        List<Table> written = new ArrayList<>(effects.written);
        if (!(statement instanceof Select) && written.isEmpty()) {
            // a statement that writes but names no target this rule knows: every table it names counts as written
            written.addAll(effects.tables);
            if (written.isEmpty()) {
                return error("a " + statement.getClass().getSimpleName() + " statement names no table to shadow");
            }
        }
        for (Table t : written) {
            String name = unquote(t.getName());
            if (!inShadowSchema.contains(t) && !shadows.shadowTable(name).isPresent() && !shadows.isShadowTable(name)) {
                unmapped.add(qualifier(t).isEmpty() ? name : qualifier(t) + "." + name);
            }
        }
        for (Column c : effects.qualified) {
            Table q = c.getTable();
            requalify(q);
            String shadow = renamed.get(unquote(q.getName()).toLowerCase(Locale.ROOT));
            if (shadow != null && !seen.contains(q)) {
                q.setName(requote(q.getName(), shadow));
            }
        }
        Optional<String> rewritten = targets.isEmpty() ? Optional.<String>empty() : Optional.of(statement.toString());
        if (rewritten.isPresent()) {
            String left = productionLeft(rewritten.get());
            if (!left.isEmpty()) {
                return error(left);
            }
        }
        return new Analysis(rewritten, new ArrayList<>(targets), new ArrayList<>(unmapped), "");
    }

    /**
     * The second check of a rewrite: {@code rewritten} parsed again from its text, read whole again; {@code ""} when
     * it names no production table that has a shadow, else why it is refused.
     */
    String productionLeft(String rewritten) {
        SqlEffects again;
        try {
            again = SqlEffects.of(parse(rewritten));
        } catch (Exception | StackOverflowError e) {
            return "the rewritten statement does not parse again (" + firstLine(e) + ")";
        }
        for (Table t : again.tables) {
            boolean shadowSchema = !qualifier(t).isEmpty() && shadows.isShadowSchema(qualifier(t));
            if (!shadowSchema && shadows.shadowTable(unquote(t.getName())).isPresent()) {
                return "the rewritten statement still names production table '" + unquote(t.getName()) + "'";
            }
            for (String part : qualifiers(t)) {
                if (shadows.shadowSchema(part).isPresent()) {
                    return "the rewritten statement still names production database or schema '" + part + "'";
                }
            }
        }
        return "";
    }

    /**
     * Replaces each qualifier of {@code t} (its schema, its database) that names a production database or schema
     * with a shadow by that shadow; returns the shadow-qualified name, or {@code ""} when nothing was replaced.
     */
    private String requalify(Table t) {
        boolean replaced = false;
        if (t.getSchemaName() != null) {
            Optional<String> shadow = shadows.shadowSchema(unquote(t.getSchemaName()));
            if (shadow.isPresent()) {
                t.setSchemaName(requote(t.getSchemaName(), shadow.get()));
                replaced = true;
            }
        }
        if (t.getDatabase() != null && t.getDatabase().getDatabaseName() != null) {
            Optional<String> shadow = shadows.shadowSchema(unquote(t.getDatabase().getDatabaseName()));
            if (shadow.isPresent()) {
                t.getDatabase().setDatabaseName(requote(t.getDatabase().getDatabaseName(), shadow.get()));
                replaced = true;
            }
        }
        return replaced ? unquote(qualifier(t)) + "." + unquote(t.getName()) : "";
    }

    /** The innermost qualifier of {@code t}: its schema, else its database; {@code ""} when unqualified. */
    private static String qualifier(Table t) {
        if (t.getSchemaName() != null && !t.getSchemaName().isEmpty()) {
            return unquote(t.getSchemaName());
        }
        if (t.getDatabase() != null && t.getDatabase().getDatabaseName() != null) {
            return unquote(t.getDatabase().getDatabaseName());
        }
        return "";
    }

    /** Every qualifier of {@code t}, unquoted: its schema and its database, where named. */
    private static List<String> qualifiers(Table t) {
        List<String> out = new ArrayList<>();
        if (t.getSchemaName() != null && !t.getSchemaName().isEmpty()) {
            out.add(unquote(t.getSchemaName()));
        }
        if (t.getDatabase() != null && t.getDatabase().getDatabaseName() != null
                && !t.getDatabase().getDatabaseName().isEmpty()) {
            out.add(unquote(t.getDatabase().getDatabaseName()));
        }
        return out;
    }

    /** One statement, parsed on this thread ({@code parse(String)} would start an executor thread for its timeout). */
    private static Statement parse(String sql) throws Exception {
        return CCJSqlParserUtil.newParser(sql).Statement();
    }

    private static String firstLine(Throwable e) {
        return e.getMessage() == null ? e.toString() : e.getMessage().split("\\r\\n|\\r|\\n", 2)[0];
    }

    private static Analysis error(String why) {
        return new Analysis(Optional.<String>empty(), Collections.<String>emptyList(), Collections.<String>emptyList(),
                why);
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
}
