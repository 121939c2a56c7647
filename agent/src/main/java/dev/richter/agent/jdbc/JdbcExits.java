package dev.richter.agent.jdbc;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import io.opentelemetry.javaagent.bootstrap.CallDepth;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The isolation at JDBC: what {@code Statement.execute*(sql)}, {@code addBatch(sql)}, {@code Connection.prepare*(sql)},
 * {@code Driver.connect(url, ...)} and {@code DataSource.getConnection()} do for a marked call, per the {@link
 * IsolationGuard}'s decision ({@code decideSql}, {@code decideJdbcUrl}, {@code decideConnection}), each stamped on the
 * current span. Unmarked calls are not looked at (one baggage lookup). Injected by the agent as a helper next to the
 * driver or pool (their class loader); no lambdas.
 */
public final class JdbcExits {
    /** SQLState of a refused call: class 42, "syntax error or access rule violation". */
    static final String REFUSED_STATE = "42000";

    /**
     * The prepared statements a marked call prepared, with the decision on their SQL taken then; weak, so it holds
     * none of them alive. Only marked prepares are put here: unmarked traffic never touches it.
     */
    private static final Map<PreparedStatement, ShadowDecision> PREPARED_MARKED =
            Collections.synchronizedMap(new WeakHashMap<>());

    /** The decision of the SQL a marked {@code prepare*(sql)} is preparing on this thread, until it returns. */
    private static final ThreadLocal<ShadowDecision> PREPARING = new ThreadLocal<>();

    private JdbcExits() {}

    /**
     * After a {@code Connection.prepare*(sql)} returned {@code statement} ({@code null} when it threw or was refused):
     * a marked call's statement keeps the decision on its SQL. Called at every level of a prepare (a pool's proxy
     * connection, then the driver's), so both the proxy statement and the driver's carry it.
     *
     * @param outermost whether this is the outermost prepare of the thread, after which the decision is forgotten
     */
    public static void afterPrepare(Object statement, boolean outermost) {
        ShadowDecision decision = PREPARING.get();
        if (outermost) {
            PREPARING.remove();
        }
        if (statement instanceof PreparedStatement && decision != null && IsolationBridge.guard().marked()) {
            PREPARED_MARKED.put((PreparedStatement) statement, decision);
        }
    }

    /**
     * Inside the outermost execution of a prepared statement (a pool's proxy delegating to the driver's statement):
     * stamps the decision of a statement a marked call prepared on the current span, which is the agent's JDBC span
     * when the agent opened it at the proxy.
     */
    public static void stampPrepared(PreparedStatement statement) {
        IsolationGuard guard = IsolationBridge.guard();
        if (guard.marked()) {
            ShadowDecision prepared = PREPARED_MARKED.get(statement);
            if (prepared != null) {
                guard.record(prepared);
            }
        }
    }

    /**
     * Before a prepared statement's {@code execute()}, {@code executeQuery()}, {@code executeUpdate()}, {@code
     * executeLargeUpdate()} or {@code addBatch()}: a marked call may run only a statement prepared while marked (its
     * SQL was decided then), and that decision is stamped again on the span of this execution (the agent's JDBC
     * span, whose {@code db.*} attributes name the SQL as the application prepared it), so every statement's span
     * says where it went. One prepared unmarked (held across requests) would reach the production tables: refused.
     *
     * @return {@code null}: run it; an {@code SQLException}: throw it, nothing is sent
     */
    public static SQLException beforeExecutePrepared(PreparedStatement statement) {
        IsolationGuard guard = IsolationBridge.guard();
        if (!guard.marked()) {
            return null;
        }
        ShadowDecision prepared = PREPARED_MARKED.get(statement);
        if (prepared != null) {
            guard.record(prepared);
            return null;
        }
        ShadowDecision decision = guard.decidePreparedUnmarked();
        guard.record(decision);
        return decision.refused() ? new SQLException(decision.refusal(), REFUSED_STATE) : null;
    }

    /**
     * Before a statement is sent or prepared.
     *
     * @param connection the statement's connection (for its database), or {@code null} when unknown
     * @param sql        the SQL as the application passed it
     * @return {@code null}: send as it is; a {@code String}: send that SQL instead (the shadow tables); an {@code
     *     SQLException}: throw it, nothing is sent
     */
    public static Object beforeSql(Connection connection, String sql) {
        return outcome(decide(connection, sql));
    }

    /** The decision on {@code sql}, recorded on the current span; {@code null} when unmarked (nothing decided). */
    private static ShadowDecision decide(Connection connection, String sql) {
        IsolationGuard guard = IsolationBridge.guard();
        if (sql == null || !guard.marked()) {
            return null;
        }
        String catalog = "";
        String schema = "";
        if (connection != null && guard.decidesByConnectionSchema()) {
            catalog = catalog(connection);
            schema = schema(connection);
        }
        ShadowDecision decision = guard.decideSql(sql, catalog, schema);
        guard.record(decision);
        return decision;
    }

    /** What {@link #beforeSql} answers for {@code decision}. */
    private static Object outcome(ShadowDecision decision) {
        if (decision == null) {
            return null;
        }
        if (decision.refused()) {
            return new SQLException(decision.refusal(), REFUSED_STATE);
        }
        return decision.rewritten().isPresent() ? decision.rewritten().get() : null;
    }

    /**
     * {@link #beforeSql} for {@code Statement.execute*(sql)} and {@code addBatch(sql)} (the statement's connection),
     * or {@code Connection.prepare*(sql)}, whose decision is kept for the statement it returns ({@link #afterPrepare}).
     */
    public static Object beforeSqlOf(Object statementOrConnection, String sql) {
        if (statementOrConnection instanceof Connection) {
            ShadowDecision decision = decide((Connection) statementOrConnection, sql);
            if (decision != null) {
                PREPARING.set(decision);
            }
            return outcome(decision);
        }
        Connection connection = null;
        if (statementOrConnection instanceof Statement && sql != null && IsolationBridge.guard().marked()) {
            try {
                connection = ((Statement) statementOrConnection).getConnection();
            } catch (SQLException | RuntimeException e) {
                // the database stays unknown: the statement is decided by its tables alone
            }
        }
        return beforeSql(connection, sql);
    }

    /**
     * Before {@code Driver.connect(url, info)} outside a {@code DataSource.getConnection}.
     *
     * @return {@code null}: connect as asked; a {@code String}: connect to that URL instead (the shadow database); an
     *     {@code SQLException}: throw it
     */
    public static Object beforeConnect(String url) {
        IsolationGuard guard = IsolationBridge.guard();
        if (url == null || !guard.marked()) {
            return null;
        }
        ShadowDecision decision = guard.decideJdbcUrl(url);
        guard.record(decision);
        if (decision.refused()) {
            return new SQLException(decision.refusal(), REFUSED_STATE);
        }
        return decision.rewritten().isPresent() ? decision.rewritten().get() : null;
    }

    /**
     * After the outermost {@code DataSource.getConnection()} of a thread returned {@code connection}.
     *
     * @return {@code connection} itself (unmarked, or nothing to switch); the connection switched to the shadow
     *     schema or catalog, wrapped so that {@code close()} switches it back before it goes back to the pool; or an
     *     {@code SQLException} to throw (the connection closed first) when it is refused or cannot be switched
     */
    public static Object afterGetConnection(Connection connection) {
        IsolationGuard guard = IsolationBridge.guard();
        if (connection == null || !guard.marked()) {
            return connection;
        }
        if (!guard.decidesByConnectionSchema()) {
            return connection;
        }
        String catalog = catalog(connection);
        String schema = schema(connection);
        ShadowDecision decision = guard.decideConnection(catalog, schema);
        guard.record(decision);
        if (decision.refused()) {
            return closed(connection, decision.refusal());
        }
        if (!decision.rewritten().isPresent()) {
            return connection;
        }
        String switchTo = decision.rewritten().get();
        boolean bySchema = switchTo.startsWith("schema=");
        String shadow = switchTo.substring(switchTo.indexOf('=') + 1);
        CallDepth own = ownCallStarts();
        try {
            if (bySchema) {
                connection.setSchema(shadow);
            } else {
                connection.setCatalog(shadow);
            }
        } catch (SQLException | RuntimeException e) {
            return closed(connection, "Richter isolation refused a marked connection: switching it to its shadow '"
                    + shadow + "' failed: " + e);
        } finally {
            own.decrementAndGet();
        }
        String now = bySchema ? schema(connection) : catalog(connection);
        if (!now.equalsIgnoreCase(shadow)) {
            return closed(connection, "Richter isolation refused a marked connection: the driver did not switch it"
                    + " from " + (bySchema ? "schema '" + schema : "catalog '" + catalog) + "' to its shadow '"
                    + shadow + "' (it is '" + now + "'); connect to the shadow database by URL");
        }
        return Proxy.newProxyInstance(JdbcExits.class.getClassLoader(), new Class<?>[] {Connection.class},
                new ShadowConnection(connection, bySchema, bySchema ? schema : catalog));
    }

    private static SQLException closed(Connection connection, String message) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            // refused either way
        }
        return new SQLException(message, REFUSED_STATE);
    }

    private static String catalog(Connection connection) {
        return nameOf(connection, true);
    }

    private static String schema(Connection connection) {
        return nameOf(connection, false);
    }

    /**
     * The connection's catalog or schema, {@code ""} when it has none or the driver cannot say. An own call ({@link
     * #ownCallStarts}): what the driver runs to answer it (HSQLDB runs {@code CALL CURRENT_SCHEMA}) is never decided as
     * the service's marked traffic.
     */
    private static String nameOf(Connection connection, boolean catalog) {
        CallDepth own = ownCallStarts();
        try {
            String name = catalog ? connection.getCatalog() : connection.getSchema();
            return name == null ? "" : name;
        } catch (SQLException | RuntimeException | AbstractMethodError e) {
            return "";
        } finally {
            own.decrementAndGet();
        }
    }

    /**
     * Starts one of the extension's own calls into the driver on this thread (a catalog or schema lookup, a schema
     * switch): until the returned depth is decremented, the JDBC advice sees itself nested and decides nothing, so the
     * statements the driver issues to answer the call are never judged as the service's. Decrement it in a {@code
     * finally}.
     */
    static CallDepth ownCallStarts() {
        CallDepth depth = CallDepth.forClass(JdbcExits.class);
        depth.getAndIncrement();
        return depth;
    }
}
