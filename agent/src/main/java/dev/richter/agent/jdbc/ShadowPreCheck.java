package dev.richter.agent.jdbc;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowCheck;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;

/**
 * The shadow pre-check: whether each {@code kind: table} shadow of the loaded document is fit to take the marked
 * writes before the first one arrives (after Takin's JDBC pre-check in its agent, shulieTech/LinkAgent). The first time
 * a connection is obtained from a {@code DataSource} or a {@code Driver} after a document (or a changed set of table
 * shadows) has loaded, a round is queued for that database; the application's call returns at once. The round runs on
 * the one thread {@value #THREAD_NAME}, with a connection of its own from the same {@code DataSource} (the same user
 * and password when the application passed them) or the same driver, URL and properties, unmarked, and checks for
 * every table (in {@link #check}):
 * <ol>
 *   <li>the shadow table exists ({@code DatabaseMetaData.getColumns} finds it, in the connection's schema unless the
 *       name is qualified) and is a table ({@code getTables}' type: {@link #WRITABLE_TYPES}), not a view;</li>
 *   <li>its columns equal the production table's, column by column in order: name (any case), type name, size and
 *       decimal digits, nullability;</li>
 *   <li>it accepts a write: {@code INSERT INTO <shadow> (<columns>) SELECT <columns> FROM <production> WHERE 1=0} in a
 *       transaction that is rolled back. It inserts no row, yet the database checks what a real marked insert needs:
 *       the INSERT privilege on the shadow and SELECT on production, a table rather than a read-only view, a writable
 *       database (no read-only replica or mode), and that every production value fits the shadow's column.</li>
 * </ol>
 * Each round is recorded once per database and user ({@link IsolationGuard#recordShadowChecks}: spans and log lines).
 * Costs the application's connection call one map look-up. A helper injected next to the driver or pool; no lambdas.
 */
public final class ShadowPreCheck {
    /** The thread the rounds run on (one per class loader the helper is injected into; a daemon). */
    public static final String THREAD_NAME = "richter-shadow-precheck";

    /** The table shadows a round was last queued for, by data source, or by JDBC URL for {@code Driver.connect}. */
    private static final Map<Object, Map<String, String>> QUEUED = Collections.synchronizedMap(new WeakHashMap<>());
    /** The table shadows last checked, by database URL and user: two sources of one database check it once. */
    private static final Map<String, Map<String, String>> CHECKED = new ConcurrentHashMap<>();
    /** Database keys of {@link #CHECKED} whose last round found a production table absent: checked again. */
    private static final java.util.Set<String> RECHECKING = ConcurrentHashMap.newKeySet();
    private static final ExecutorService ROUNDS = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS,
            new LinkedBlockingQueue<>(), new Daemon());

    /** The {@code TABLE_TYPE}s of {@code DatabaseMetaData.getTables} a shadow may have: a view or temporary table fails. */
    static final List<String> WRITABLE_TYPES = Collections.unmodifiableList(Arrays.asList("TABLE", "BASE TABLE",
            "PARTITIONED TABLE"));

    /** How the reason of a table whose production table this database lacks begins. */
    static final String ABSENT = "no production table";

    /**
     * How long after a round that found a mapped production table absent the next connection checks again, ms: the
     * application may be creating its schema (Spring's {@code schema.sql}, Flyway) on the connection that started the
     * round, so an absent table is re-checked rather than taken as the database's last word.
     */
    static final long ABSENT_RECHECK_MS = 5_000;
    /** When the next round of a queue key whose last round found a production table absent may run, epoch ms. */
    private static final Map<Object, Long> RECHECK_AT = Collections.synchronizedMap(new WeakHashMap<>());

    private ShadowPreCheck() {}

    /**
     * After the outermost {@code DataSource.getConnection(...)} of a thread returned a connection.
     *
     * @param dataSource the data source
     * @param arguments  the call's arguments: none, or user and password
     */
    public static void connected(Object dataSource, Object[] arguments) {
        if (dataSource instanceof DataSource) {
            DataSource source = (DataSource) dataSource;
            queue(source, new Round(source, arguments == null ? new Object[0] : arguments.clone(), null, null, null));
        }
    }

    /** After {@code Driver.connect(url, info)} returned a connection, outside any {@code DataSource}. */
    public static void connected(Object driver, String url, Properties info) {
        if (driver instanceof Driver && url != null && !IsolationBridge.guard().marked()) {
            Properties copy = new Properties();
            if (info != null) {
                copy.putAll(info);
            }
            queue(url, new Round(null, null, (Driver) driver, url, copy));
        }
    }

    private static void queue(Object key, Round round) {
        Map<String, String> shadows = IsolationBridge.guard().tableShadows();
        if (shadows.isEmpty()) {
            return;
        }
        synchronized (QUEUED) {
            Map<String, String> before = QUEUED.get(key);
            Long recheckAt = RECHECK_AT.get(key);
            boolean recheck = recheckAt != null && System.currentTimeMillis() >= recheckAt;
            if ((before == shadows || shadows.equals(before)) && !recheck) {
                return;
            }
            RECHECK_AT.remove(key);
            QUEUED.put(key, shadows);
        }
        round.shadows = shadows;
        round.queueKey = key;
        ROUNDS.execute(round);
    }

    /** One round: a connection of its own, then {@link #check}, then the record. */
    static final class Round implements Runnable {
        private final DataSource dataSource;
        private final Object[] arguments;
        private final Driver driver;
        private final String url;
        private final Properties info;
        private volatile Map<String, String> shadows;
        private volatile Object queueKey;

        Round(DataSource dataSource, Object[] arguments, Driver driver, String url, Properties info) {
            this.dataSource = dataSource;
            this.arguments = arguments;
            this.driver = driver;
            this.url = url;
            this.info = info;
        }

        @Override
        public void run() {
            IsolationGuard guard = IsolationBridge.guard();
            try (MarkerScope detached = guard.detached()) {
                Connection connection = null;
                try {
                    connection = open();
                    DatabaseMetaData meta = connection.getMetaData();
                    String database = withoutParameters(meta.getURL());
                    String key = database + " as " + meta.getUserName();
                    Map<String, String> before = CHECKED.put(key, shadows);
                    if (shadows.equals(before) && !RECHECKING.remove(key)) {
                        return;
                    }
                    List<ShadowCheck> checks = check(connection, shadows);
                    for (ShadowCheck c : checks) {
                        if (c.outcome() == ShadowCheck.Outcome.ABSENT) {
                            RECHECKING.add(key);
                            RECHECK_AT.put(queueKey, System.currentTimeMillis() + ABSENT_RECHECK_MS);
                            break;
                        }
                    }
                    guard.recordShadowChecks(database, checks);
                } catch (SQLException | RuntimeException e) {
                    List<ShadowCheck> failed = new ArrayList<>();
                    for (Map.Entry<String, String> t : new TreeMap<>(shadows).entrySet()) {
                        failed.add(new ShadowCheck(t.getKey(), t.getValue(), ShadowCheck.Outcome.FAIL,
                                "the pre-check could not connect: " + e));
                    }
                    guard.recordShadowChecks(url != null ? withoutParameters(url) : String.valueOf(dataSource), failed);
                } finally {
                    close(connection);
                }
            }
        }

        private Connection open() throws SQLException {
            if (driver != null) {
                Connection c = driver.connect(url, info);
                if (c == null) {
                    throw new SQLException("the driver no longer accepts " + withoutParameters(url));
                }
                return c;
            }
            return arguments.length == 2 ? dataSource.getConnection((String) arguments[0], (String) arguments[1])
                    : dataSource.getConnection();
        }
    }

    /**
     * Checks every table shadow on {@code connection} (see the class); leaves the connection as it found it.
     *
     * @param shadows production table → shadow table, either optionally qualified {@code schema.table}
     * @return one per entry, by production table name: {@code ABSENT} when this database has no such production
     *     table, else {@code PASS} or {@code FAIL}
     */
    static List<ShadowCheck> check(Connection connection, Map<String, String> shadows) {
        List<ShadowCheck> out = new ArrayList<>();
        for (Map.Entry<String, String> t : new TreeMap<>(shadows).entrySet()) {
            String reason;
            try {
                reason = checkOne(connection, t.getKey(), t.getValue());
            } catch (SQLException | RuntimeException e) {
                reason = "the check failed: " + e;
            }
            ShadowCheck.Outcome outcome = reason.isEmpty() ? ShadowCheck.Outcome.PASS
                    : reason.startsWith(ABSENT) ? ShadowCheck.Outcome.ABSENT : ShadowCheck.Outcome.FAIL;
            out.add(new ShadowCheck(t.getKey(), t.getValue(), outcome, reason));
        }
        return out;
    }

    /** {@code ""} when the shadow passes, else the first reason it does not. */
    private static String checkOne(Connection connection, String production, String shadow) throws SQLException {
        DatabaseMetaData meta = connection.getMetaData();
        Table prod = Table.find(connection, meta, production);
        if (prod.columns().isEmpty()) {
            return ABSENT + " '" + production + "' in this database (" + prod.where() + ")";
        }
        Table shad = Table.find(connection, meta, shadow);
        if (shad.columns().isEmpty()) {
            return "the shadow table '" + shadow + "' does not exist (" + shad.where() + ")";
        }
        if (!WRITABLE_TYPES.contains(shad.type())) {
            return "the shadow '" + shadow + "' is a " + shad.type() + ", not a table";
        }
        int n = Math.max(prod.columns().size(), shad.columns().size());
        for (int i = 0; i < n; i++) {
            Column p = i < prod.columns().size() ? prod.columns().get(i) : null;
            Column s = i < shad.columns().size() ? shad.columns().get(i) : null;
            if (p == null || s == null || !p.equals(s)) {
                return "column " + (i + 1) + " differs: production " + (p == null ? "has none" : "'" + p + "'")
                        + ", shadow " + (s == null ? "has none" : "'" + s + "'");
            }
        }
        return writeProbe(connection, meta, prod, shad);
    }

    /** The write probe of the class's third check, rolled back; {@code ""} when the database accepts it. */
    private static String writeProbe(Connection connection, DatabaseMetaData meta, Table prod, Table shad)
            throws SQLException {
        String q = meta.getIdentifierQuoteString();
        q = q == null ? "" : strip(q);
        StringBuilder columns = new StringBuilder();
        for (Column c : shad.columns()) {
            columns.append(columns.length() == 0 ? "" : ", ").append(q).append(c.name()).append(q);
        }
        String sql = "INSERT INTO " + shad.qualified(q) + " (" + columns + ") SELECT " + columns + " FROM "
                + prod.qualified(q) + " WHERE 1=0";
        boolean autoCommit = connection.getAutoCommit();
        try {
            connection.setAutoCommit(false);
            try (Statement s = connection.createStatement()) {
                s.executeUpdate(sql);
            }
            return "";
        } catch (SQLException e) {
            return "the shadow does not accept a write (" + sql + "): " + e.getMessage();
        } finally {
            try {
                connection.rollback();
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        }
    }

    /**
     * One column as the pre-check compares it.
     *
     * @param name     as the database reports it
     * @param type     {@code TYPE_NAME(COLUMN_SIZE[,DECIMAL_DIGITS])}
     * @param nullable {@code NULL}, {@code NOT NULL} or {@code NULL?} (unknown)
     */
    static final class Column {
        private final String name;
        private final String type;
        private final String nullable;

        Column(String name, String type, String nullable) {
            this.name = name;
            this.type = type;
            this.nullable = nullable;
        }

        String name() {
            return name;
        }

        String type() {
            return type;
        }

        String nullable() {
            return nullable;
        }

        /** Same name (any case), type and nullability. */
        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Column)) {
                return false;
            }
            Column c = (Column) o;
            return c.name.equalsIgnoreCase(name) && c.type.equals(type) && c.nullable.equals(nullable);
        }

        @Override
        public int hashCode() {
            return name.toLowerCase(Locale.ROOT).hashCode() * 31 + type.hashCode();
        }

        @Override
        public String toString() {
            return name + " " + type + " " + nullable;
        }
    }

    /**
     * A table as {@code DatabaseMetaData.getColumns} reports it.
     *
     * @param schema  its schema as reported, or the one searched
     * @param name    its name as reported, or the one searched
     * @param type    its {@code TABLE_TYPE} ({@code getTables}), e.g. {@code TABLE}, {@code VIEW}; {@code ""} unknown
     * @param columns in {@code ORDINAL_POSITION} order; empty when the table was not found
     * @param where   the catalog and schema searched, for a reason
     */
    static final class Table {
        private final String schema;
        private final String name;
        private final String type;
        private final List<Column> columns;
        private final String where;

        Table(String schema, String name, String type, List<Column> columns, String where) {
            this.schema = schema;
            this.name = name;
            this.type = type;
            this.columns = columns;
            this.where = where;
        }

        String schema() {
            return schema;
        }

        String name() {
            return name;
        }

        String type() {
            return type;
        }

        List<Column> columns() {
            return columns;
        }

        String where() {
            return where;
        }

        String qualified(String quote) {
            return (schema == null || schema.isEmpty() ? "" : quote + schema + quote + ".") + quote + name + quote;
        }

        /** Finds {@code table} ({@code name} or {@code schema.name}) in the connection's catalog. */
        static Table find(Connection connection, DatabaseMetaData meta, String table) throws SQLException {
            int dot = table.lastIndexOf('.');
            String schema = dot < 0 ? connection.getSchema() : identifier(meta, table.substring(0, dot));
            String name = identifier(meta, table.substring(dot + 1));
            String catalog = connection.getCatalog();
            String escape = meta.getSearchStringEscape();
            List<Column> columns = new ArrayList<>();
            String foundSchema = schema;
            String foundName = name;
            try (ResultSet rs = meta.getColumns(catalog, pattern(schema, escape), pattern(name, escape), "%")) {
                while (rs.next()) {
                    foundSchema = rs.getString("TABLE_SCHEM");
                    foundName = rs.getString("TABLE_NAME");
                    int nullable = rs.getInt("NULLABLE");
                    String size = rs.getString("COLUMN_SIZE");
                    String digits = rs.getString("DECIMAL_DIGITS");
                    String type = rs.getString("TYPE_NAME") + (size == null ? "" : "(" + size
                            + (digits == null || "0".equals(digits) ? "" : "," + digits) + ")");
                    columns.add(new Column(rs.getString("COLUMN_NAME"), type,
                            nullable == DatabaseMetaData.columnNoNulls ? "NOT NULL"
                                    : nullable == DatabaseMetaData.columnNullable ? "NULL" : "NULL?"));
                }
            }
            String type = "";
            try (ResultSet rs = meta.getTables(catalog, pattern(foundSchema, escape), pattern(foundName, escape), null)) {
                if (rs.next()) {
                    type = rs.getString("TABLE_TYPE");
                }
            }
            return new Table(foundSchema, foundName, type == null ? "" : type.toUpperCase(Locale.ROOT), columns,
                    "catalog " + catalog + ", schema " + schema);
        }
    }

    /** An unquoted identifier in the case the database stores it; a quoted one as written, without its quotes. */
    private static String identifier(DatabaseMetaData meta, String name) throws SQLException {
        String n = strip(name);
        if (n.length() > 1 && (n.startsWith("\"") && n.endsWith("\"") || n.startsWith("`") && n.endsWith("`"))) {
            return n.substring(1, n.length() - 1);
        }
        if (meta.storesUpperCaseIdentifiers()) {
            return n.toUpperCase(Locale.ROOT);
        }
        return meta.storesLowerCaseIdentifiers() ? n.toLowerCase(Locale.ROOT) : n;
    }

    /**
     * {@code s.strip()} (Java 11): without leading and trailing {@link Character#isWhitespace} code points. Not the
     * SDK's {@code Backports.strip}: this class is injected next to the JDBC driver, whose class loader has no SDK.
     */
    private static String strip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && Character.isWhitespace(s.codePointAt(start))) {
            start += Character.charCount(s.codePointAt(start));
        }
        while (end > start && Character.isWhitespace(s.codePointBefore(end))) {
            end -= Character.charCount(s.codePointBefore(end));
        }
        return s.substring(start, end);
    }

    /** {@code name} as a {@code getColumns} pattern matching only itself ({@code _} and {@code %} escaped). */
    private static String pattern(String name, String escape) {
        if (name == null || escape == null || escape.isEmpty()) {
            return name;
        }
        return name.replace(escape, escape + escape).replace("_", escape + "_").replace("%", escape + "%");
    }

    /** A JDBC URL up to its parameters ({@code ;...} or {@code ?...}), which may hold a password. */
    static String withoutParameters(String url) {
        if (url == null) {
            return "";
        }
        int cut = url.length();
        for (char c : new char[] {';', '?'}) {
            int at = url.indexOf(c);
            if (at >= 0 && at < cut) {
                cut = at;
            }
        }
        return url.substring(0, cut);
    }

    private static void close(Connection connection) {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException | RuntimeException e) {
                // the round is recorded either way
            }
        }
    }

    /** Names the rounds' thread and makes it a daemon, so it never keeps the service's JVM alive. */
    static final class Daemon implements ThreadFactory {
        @Override
        public Thread newThread(Runnable r) {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        }
    }
}
