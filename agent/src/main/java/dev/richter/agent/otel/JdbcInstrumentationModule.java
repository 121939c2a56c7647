package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The isolation at JDBC ({@link JdbcInstrumentation}: statements, connections, drivers, data sources), for shadow
 * tables and shadow databases, and the shadow pre-check; its helpers, {@code dev.richter.agent.jdbc.JdbcExits},
 * {@code ShadowConnection} and {@code ShadowPreCheck}, are injected next to the driver. Instrumentation name {@code richter-jdbc}.
 */
public final class JdbcInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.jdbc} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList("dev.richter.agent.jdbc.JdbcExits",
            "dev.richter.agent.jdbc.ShadowConnection", "dev.richter.agent.jdbc.ShadowPreCheck",
            "dev.richter.agent.jdbc.ShadowPreCheck$Round", "dev.richter.agent.jdbc.ShadowPreCheck$Column",
            "dev.richter.agent.jdbc.ShadowPreCheck$Table", "dev.richter.agent.jdbc.ShadowPreCheck$Daemon"));

    public JdbcInstrumentationModule() {
        super("richter-jdbc");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.unmodifiableList(Arrays.asList(JdbcInstrumentation.statements(),
                JdbcInstrumentation.preparedStatements(),
                JdbcInstrumentation.connections(),
                JdbcInstrumentation.drivers(), JdbcInstrumentation.dataSources()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
