package dev.richter.agent.it;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;

/**
 * {@link JdbcDriverIsolation} on MariaDB (Debian's {@code mariadb-server}, a private server under {@code target/}) with
 * MariaDB Connector/J 3.5, whose catalog is the database; skipped when MariaDB is not installed.
 */
class MariadbIsolationIT extends JdbcDriverIsolation {
    @Override
    DatabaseServer start(List<String> databases) throws Exception {
        assumeTrue(DatabaseServer.mariadbMissing().isEmpty(), DatabaseServer.mariadbMissing().orElse(""));
        return DatabaseServer.mariadb(databases);
    }

    @Override
    Class<?> driver() {
        return org.mariadb.jdbc.Driver.class;
    }
}
