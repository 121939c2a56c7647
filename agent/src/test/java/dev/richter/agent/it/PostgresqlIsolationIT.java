package dev.richter.agent.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

/**
 * {@link JdbcDriverIsolation} on PostgreSQL (Debian's {@code postgresql}, a private cluster under {@code target/}) with
 * pgJDBC 42.7; skipped when PostgreSQL is not installed.
 */
class PostgresqlIsolationIT extends JdbcDriverIsolation {
    @Override
    DatabaseServer start(List<String> databases) throws Exception {
        assumeTrue(DatabaseServer.postgresqlMissing().isEmpty(), DatabaseServer.postgresqlMissing().orElse(""));
        return DatabaseServer.postgresql(databases);
    }

    @Override
    Class<?> driver() {
        return org.postgresql.Driver.class;
    }
}
