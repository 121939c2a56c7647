package dev.richter.agent.it;

import java.util.List;

/**
 * {@link JdbcDriverIsolation} on HSQLDB 2.7 (a server in the test's JVM, in-memory databases): its driver answers
 * {@code Connection.getSchema()} by running {@code CALL CURRENT_SCHEMA}, which the extension must not judge as the
 * service's marked statement (a procedure call, refused).
 */
class HsqldbIsolationIT extends JdbcDriverIsolation {
    @Override
    DatabaseServer start(List<String> databases) throws Exception {
        return DatabaseServer.hsqldb(databases);
    }

    @Override
    Class<?> driver() {
        return org.hsqldb.jdbc.JDBCDriver.class;
    }

    /** HSQLDB's catalog and schema are {@code PUBLIC} in every database: the shadow database is not recognised. */
    @Override
    boolean routesByUrl() {
        return false;
    }
}
