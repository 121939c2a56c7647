package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.jdbc.JdbcExits;
import dev.richter.agent.jdbc.ShadowPreCheck;
import io.opentelemetry.javaagent.bootstrap.CallDepth;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Properties;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * The JDBC classes the isolation instruments, one instrumentation per interface: every implementation of
 * {@code java.sql.Statement} ({@code execute}, {@code executeQuery}, {@code executeUpdate}, {@code
 * executeLargeUpdate}, {@code addBatch} taking the SQL), {@code java.sql.Connection} ({@code prepareStatement}, {@code
 * prepareCall}), {@code java.sql.Driver} ({@code connect}) and {@code javax.sql.DataSource} ({@code getConnection}).
 * The advice replaces the SQL or URL argument with the shadow one, or skips the call and throws the refusal's {@code
 * SQLException}; only the outermost call of a thread decides (a driver's overloads call each other). A connection
 * obtained (outermost {@code getConnection}, or {@code connect} outside one) may queue a shadow pre-check ({@code
 * ShadowPreCheck}), which runs on a thread of its own.
 */
final class JdbcInstrumentation extends ImplementorsInstrumentation {
    private JdbcInstrumentation(String iface) {
        super(iface);
    }

    static JdbcInstrumentation statements() {
        return new JdbcInstrumentation("java.sql.Statement");
    }

    static JdbcInstrumentation preparedStatements() {
        return new JdbcInstrumentation("java.sql.PreparedStatement");
    }

    static JdbcInstrumentation connections() {
        return new JdbcInstrumentation("java.sql.Connection");
    }

    static JdbcInstrumentation drivers() {
        return new JdbcInstrumentation("java.sql.Driver");
    }

    static JdbcInstrumentation dataSources() {
        return new JdbcInstrumentation("javax.sql.DataSource");
    }

    @Override
    public void transform(TypeTransformer transformer) {
        String self = JdbcInstrumentation.class.getName();
        switch (iface) {
            case "java.sql.Statement":
                transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(namedOneOf("execute", "executeQuery",
                                "executeUpdate", "executeLargeUpdate", "addBatch"))
                                .and(takesArgument(0, String.class)), self + "$SqlAdvice");
                break;
            case "java.sql.PreparedStatement":
                transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(namedOneOf("execute", "executeQuery",
                                "executeUpdate", "executeLargeUpdate", "addBatch"))
                                .and(takesArguments(0)), self + "$ExecutePreparedAdvice");
                break;
            case "java.sql.Connection":
                transformer.applyAdviceToMethod(isMethod().and(isPublic())
                                .and(namedOneOf("prepareStatement", "prepareCall")).and(takesArgument(0, String.class)),
                        self + "$SqlAdvice");
                break;
            case "java.sql.Driver":
                transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("connect"))
                        .and(takesArguments(2)).and(takesArgument(0, String.class)), self + "$ConnectAdvice");
                break;
            default:
                transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("getConnection")),
                        self + "$GetConnectionAdvice");
        }
    }

    /**
     * {@code Statement.execute*(sql, ...)}, {@code addBatch(sql)}, {@code Connection.prepareStatement(sql, ...)},
     * {@code prepareCall(sql, ...)}: the SQL replaced or refused; the statement a marked call prepared is remembered
     * as decided ({@link ExecutePreparedAdvice}).
     */
    @SuppressWarnings("unused")
    public static final class SqlAdvice {
        private SqlAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.This Object statementOrConnection,
                                   @Advice.Argument(value = 0, readOnly = false) String sql,
                                   @Advice.Local("richterDepth") CallDepth depth) {
            depth = CallDepth.forClass(JdbcExits.class);
            if (depth.getAndIncrement() > 0) {
                return null;
            }
            Object decided = JdbcExits.beforeSqlOf(statementOrConnection, sql);
            if (decided instanceof String) {
                sql = (String) decided;
                return null;
            }
            return decided;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown,
                                @Advice.Return(typing = Assigner.Typing.DYNAMIC) Object returned,
                                @Advice.Local("richterDepth") CallDepth depth) {
            // every level's statement (a pool's proxy and the driver's own) carries the outermost prepare's decision
            JdbcExits.afterPrepare(refusal == null && thrown == null ? returned : null, depth.decrementAndGet() == 0);
            if (refusal instanceof Throwable) {
                thrown = (Throwable) refusal;
            }
        }
    }

    /** {@code PreparedStatement.execute*()}, {@code addBatch()}: refused when marked and prepared unmarked. */
    @SuppressWarnings("unused")
    public static final class ExecutePreparedAdvice {
        private ExecutePreparedAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.This PreparedStatement statement,
                                   @Advice.Local("richterDepth") CallDepth depth) {
            depth = CallDepth.forClass(JdbcExits.class);
            if (depth.getAndIncrement() > 0) {
                // inside a pool's proxy: the driver's statement, whose call may be the one the agent's span is
                // current in
                JdbcExits.stampPrepared(statement);
                return null;
            }
            return JdbcExits.beforeExecutePrepared(statement);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown,
                                @Advice.Local("richterDepth") CallDepth depth) {
            depth.decrementAndGet();
            if (refusal instanceof Throwable) {
                thrown = (Throwable) refusal;
            }
        }
    }

    /**
     * {@code Driver.connect(url, info)}, but inside a {@code DataSource.getConnection} (a pool opening its connection
     * on the caller's thread: that connection is the pool's, and is switched at {@link GetConnectionAdvice}).
     */
    @SuppressWarnings("unused")
    public static final class ConnectAdvice {
        private ConnectAdvice() {}

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        public static Object enter(@Advice.Argument(value = 0, readOnly = false) String url,
                                   @Advice.Local("richterPooled") boolean pooled) {
            CallDepth inDataSource = CallDepth.forClass(ShadowDecision.class);
            pooled = inDataSource.getAndIncrement() > 0;
            inDataSource.decrementAndGet();
            if (pooled) {
                return null;
            }
            Object decided = JdbcExits.beforeConnect(url);
            if (decided instanceof String) {
                url = (String) decided;
                return null;
            }
            return decided;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter Object refusal, @Advice.Thrown(readOnly = false) Throwable thrown,
                                @Advice.This Object driver, @Advice.Argument(0) String url,
                                @Advice.Argument(1) Properties info, @Advice.Return Connection connection,
                                @Advice.Local("richterPooled") boolean pooled) {
            if (refusal instanceof Throwable) {
                thrown = (Throwable) refusal;
            } else if (!pooled && thrown == null && connection != null) {
                ShadowPreCheck.connected(driver, url, info);
            }
        }
    }

    /**
     * {@code DataSource.getConnection(...)}: the outermost of a thread (keyed on the boot class path's {@code
     * ShadowDecision}, so pools and drivers in different class loaders share it) switches a marked call's connection.
     */
    @SuppressWarnings("unused")
    public static final class GetConnectionAdvice {
        private GetConnectionAdvice() {}

        @Advice.OnMethodEnter(suppress = Throwable.class)
        public static CallDepth enter() {
            CallDepth depth = CallDepth.forClass(ShadowDecision.class);
            depth.getAndIncrement();
            return depth;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        public static void exit(@Advice.Enter CallDepth depth,
                                @Advice.Return(readOnly = false) Connection connection,
                                @Advice.Thrown(readOnly = false) Throwable thrown,
                                @Advice.This Object dataSource, @Advice.AllArguments Object[] arguments) {
            if (depth.decrementAndGet() > 0 || thrown != null || connection == null) {
                return;
            }
            ShadowPreCheck.connected(dataSource, arguments);
            Object decided = JdbcExits.afterGetConnection(connection);
            if (decided instanceof Connection) {
                connection = (Connection) decided;
            } else if (decided instanceof Throwable) {
                connection = null;
                thrown = (Throwable) decided;
            }
        }
    }
}
