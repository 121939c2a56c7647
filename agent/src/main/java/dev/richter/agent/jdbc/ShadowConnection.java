package dev.richter.agent.jdbc;

import io.opentelemetry.javaagent.bootstrap.CallDepth;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.util.logging.Logger;

/**
 * A pooled connection a marked call took and {@link JdbcExits#afterGetConnection} switched to its shadow schema (or
 * catalog), as the {@code java.sql.Connection} the application gets: every call goes to the pool's connection, and
 * {@code close()} first switches it back to the production schema, so the pool never hands a shadow connection to
 * unmarked traffic (HikariCP also resets a schema or catalog changed through its proxy on return). {@code unwrap}
 * reaches the driver's connection; a cast to the pool's own class does not.
 */
final class ShadowConnection implements InvocationHandler {
    private static final Logger LOG = Logger.getLogger(ShadowConnection.class.getName());

    private final Connection pooled;
    private final boolean bySchema;
    private final String production;

    ShadowConnection(Connection pooled, boolean bySchema, String production) {
        this.pooled = pooled;
        this.bySchema = bySchema;
        this.production = production;
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
        if ("close".equals(method.getName()) && method.getParameterCount() == 0) {
            restore();
        }
        if ("equals".equals(method.getName()) && method.getParameterCount() == 1) {
            return proxy == args[0];
        }
        if ("hashCode".equals(method.getName()) && method.getParameterCount() == 0) {
            return System.identityHashCode(proxy);
        }
        try {
            return method.invoke(pooled, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Switches the connection back, as one of the extension's own calls ({@code JdbcExits.ownCallStarts}). */
    private void restore() {
        CallDepth own = JdbcExits.ownCallStarts();
        try {
            if (!pooled.isClosed()) {
                if (bySchema) {
                    pooled.setSchema(production);
                } else {
                    pooled.setCatalog(production);
                }
            }
        } catch (Exception e) {
            LOG.warning("Richter isolation: could not switch a marked connection back to '" + production
                    + "' before it went back to its pool: " + e);
        } finally {
            own.decrementAndGet();
        }
    }
}
