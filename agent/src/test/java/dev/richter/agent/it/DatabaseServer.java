package dev.richter.agent.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.hsqldb.server.Server;

/**
 * A database server private to one test (or one {@link LeakMatrix} run), on an ephemeral loopback port, with the
 * databases it is asked for, reached by the real JDBC drivers teams use: H2 (a TCP server in this JVM), HSQLDB 2.7 (a server in this JVM, in-memory
 * databases), PostgreSQL (Debian's {@code postgresql}: {@code initdb} and {@code postgres} under {@code target/}, as
 * the {@code postgres} user when this JVM runs as root, trust authentication on loopback) and MariaDB (Debian's {@code
 * mariadb-server}: {@code mariadb-install-db} and {@code mariadbd --skip-grant-tables} under {@code target/}). {@link
 * #close()} stops it and removes its directory.
 */
final class DatabaseServer implements AutoCloseable {
    /** Where Debian's {@code mariadb-server} puts its binaries. */
    static final Path MARIADB_INSTALL_DB = Path.of("/usr/bin/mariadb-install-db");
    static final Path MARIADBD = Path.of("/usr/sbin/mariadbd");

    final String kind;
    final String user;
    final String password;
    private final String urlPrefix;
    private final String urlSuffix;
    private final AutoCloseable stop;

    private DatabaseServer(String kind, String urlPrefix, String user, String password, AutoCloseable stop) {
        this(kind, urlPrefix, "", user, password, stop);
    }

    private DatabaseServer(String kind, String urlPrefix, String urlSuffix, String user, String password,
            AutoCloseable stop) {
        this.kind = kind;
        this.urlPrefix = urlPrefix;
        this.urlSuffix = urlSuffix;
        this.user = user;
        this.password = password;
        this.stop = stop;
    }

    /** The JDBC URL of {@code database}. */
    String url(String database) {
        return urlPrefix + database + urlSuffix;
    }

    /** Runs {@code statements} on {@code database} through this test's own connection (no agent here). */
    void execute(String database, String... statements) throws Exception {
        try (Connection c = DriverManager.getConnection(url(database), user, password); Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        }
    }

    /** Rows of {@code table}, or the first value of a {@code SELECT}, read by this test's own connection. */
    long count(String database, String tableOrQuery) throws Exception {
        String query = tableOrQuery.startsWith("SELECT") ? tableOrQuery : "SELECT COUNT(*) FROM " + tableOrQuery;
        try (Connection c = DriverManager.getConnection(url(database), user, password);
             Statement s = c.createStatement(); ResultSet rs = s.executeQuery(query)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Override
    public void close() throws Exception {
        stop.close();
    }

    /** An H2 TCP server in this JVM; its in-memory databases come with their first connection and stay till it stops. */
    static DatabaseServer h2() throws Exception {
        org.h2.tools.Server server = org.h2.tools.Server.createTcpServer("-tcpPort",
                String.valueOf(StorageIsolationIT.freePort()), "-ifNotExists").start();
        return new DatabaseServer("H2", "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:", ";DB_CLOSE_DELAY=-1",
                "sa", "", server::stop);
    }

    /** An HSQLDB server in this JVM serving {@code databases} (in memory) by name. */
    static DatabaseServer hsqldb(List<String> databases) throws Exception {
        int port = StorageIsolationIT.freePort();
        Server server = new Server();
        server.setAddress("127.0.0.1");
        server.setPort(port);
        for (int i = 0; i < databases.size(); i++) {
            server.setDatabaseName(i, databases.get(i));
            server.setDatabasePath(i, "mem:" + databases.get(i));
        }
        server.setSilent(true);
        server.setTrace(false);
        server.setNoSystemExit(true);
        server.setLogWriter(null);
        server.setErrWriter(null);
        server.start();
        DatabaseServer db = new DatabaseServer("HSQLDB",
                "jdbc:hsqldb:hsql://127.0.0.1:" + port + "/", "SA", "", server::stop);
        db.awaitConnection(databases.get(0), null);
        return db;
    }

    /** The {@code bin} of the newest PostgreSQL Debian installed ({@code /usr/lib/postgresql/<major>/bin}), if any. */
    static Optional<Path> postgresqlBin() {
        try (Stream<Path> majors = Files.list(Path.of("/usr/lib/postgresql"))) {
            return majors.map(m -> m.resolve("bin")).filter(b -> Files.isExecutable(b.resolve("initdb"))
                    && Files.isExecutable(b.resolve("postgres")))
                    .max(Comparator.comparingInt(b -> Integer.parseInt(b.getParent().getFileName().toString()
                            .replaceAll("\\D", "0"))));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Why PostgreSQL cannot be started here, or empty when it can. */
    static Optional<String> postgresqlMissing() {
        return postgresqlBin().isPresent() ? Optional.empty()
                : Optional.of("PostgreSQL is not installed (no /usr/lib/postgresql/<major>/bin/initdb): apt-get install -y postgresql");
    }

    /** Why MariaDB cannot be started here, or empty when it can. */
    static Optional<String> mariadbMissing() {
        return Files.isExecutable(MARIADB_INSTALL_DB) && Files.isExecutable(MARIADBD) ? Optional.empty()
                : Optional.of("MariaDB is not installed (no " + MARIADBD + ", " + MARIADB_INSTALL_DB
                        + "): apt-get install -y mariadb-server");
    }

    /** A PostgreSQL cluster of its own under {@code target/} with {@code databases} created, user {@code postgres}. */
    static DatabaseServer postgresql(List<String> databases) throws Exception {
        Path bin = postgresqlBin().orElseThrow(() -> new IllegalStateException(postgresqlMissing().orElseThrow()));
        // initdb and postgres refuse to run as root: as root they run as postgres, in a directory of the system's
        // temporary directory, since the checkout's (a clone under a mktemp -d, mode 700) may be closed to that user
        boolean root = "root".equals(System.getProperty("user.name"));
        Path dir = root ? Files.createTempDirectory("richter-postgresql-") : privateDirectory("postgresql-");
        List<String> as = new ArrayList<>();
        if (root) {
            Files.setOwner(dir, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName("postgres"));
            as.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        Path data = dir.resolve("data");
        Path log = privateDirectory("postgresql-").resolve("postgresql.log");
        run(log, dir, concat(as, bin.resolve("initdb").toString(), "-D", data.toString(), "-U", "postgres", "-A", "trust",
                "-E", "UTF8", "--no-sync"));
        int port = StorageIsolationIT.freePort();
        Process postgres = new ProcessBuilder(concat(as, bin.resolve("postgres").toString(), "-D", data.toString(),
                "-p", String.valueOf(port), "-k", dir.toString(), "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                "-c", "full_page_writes=off", "-c", "max_connections=40", "-c", "shared_buffers=16MB"))
                .directory(dir.toFile())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        List<String> stop = concat(as, bin.resolve("pg_ctl").toString(), "-D", data.toString(), "stop", "-m", "immediate");
        DatabaseServer db = new DatabaseServer("PostgreSQL " + bin.getParent().getFileName(),
                "jdbc:postgresql://127.0.0.1:" + port + "/", "postgres", "", () -> {
                    try {
                        run(log, dir, stop);
                    } finally {
                        stopProcess(postgres);
                        deleteTree(dir);
                    }
                });
        return db.withDatabases(postgres, "postgres", databases);
    }

    /** A MariaDB server of its own under {@code target/} with {@code databases} created, user {@code root}, no grants. */
    static DatabaseServer mariadb(List<String> databases) throws Exception {
        mariadbMissing().ifPresent(why -> {
            throw new IllegalStateException(why);
        });
        Path dir = privateDirectory("mariadb-");
        Path data = dir.resolve("data");
        Path log = dir.getParent().resolve(dir.getFileName() + ".log");
        List<String> asRoot = "root".equals(System.getProperty("user.name")) ? List.of("--user=root") : List.of();
        // --no-defaults first, as both want it; as root, they run as root (--user)
        List<String> install = concat(List.of(MARIADB_INSTALL_DB.toString(), "--no-defaults", "--datadir=" + data,
                "--auth-root-authentication-method=normal", "--skip-test-db"));
        install.addAll(asRoot);
        run(log, install);
        int port = StorageIsolationIT.freePort();
        List<String> server = concat(List.of(MARIADBD.toString(), "--no-defaults", "--datadir=" + data,
                "--socket=" + dir.resolve("mysqld.sock"), "--pid-file=" + dir.resolve("mysqld.pid"),
                "--port=" + port, "--bind-address=127.0.0.1", "--skip-grant-tables", "--skip-name-resolve",
                "--innodb-buffer-pool-size=32M", "--innodb-flush-log-at-trx-commit=0"));
        server.addAll(asRoot);
        Process mariadbd = new ProcessBuilder(server)
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        DatabaseServer db = new DatabaseServer("MariaDB", "jdbc:mariadb://127.0.0.1:" + port + "/", "root", "", () -> {
            stopProcess(mariadbd);
            deleteTree(dir);
        });
        return db.withDatabases(mariadbd, "mysql", databases);
    }

    /**
     * This server once it answers on {@code adminDatabase}, with {@code databases} created there; stopped when it
     * does not start or a database cannot be created.
     */
    private DatabaseServer withDatabases(Process server, String adminDatabase, List<String> databases) throws Exception {
        try {
            awaitConnection(adminDatabase, server);
            for (String database : databases) {
                execute(adminDatabase, "CREATE DATABASE " + database);
            }
        } catch (Exception e) {
            close();
            throw e;
        }
        return this;
    }

    /** Connects to {@code database} until it answers (60 s at most), failing early when {@code server} ended. */
    private void awaitConnection(String database, Process server) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Connection c = DriverManager.getConnection(url(database), user, password)) {
                return;
            } catch (Exception notYet) {
                if ((server != null && !server.isAlive()) || System.nanoTime() > deadline) {
                    throw new IllegalStateException(kind + " did not start: " + notYet);
                }
                Thread.sleep(200);
            }
        }
    }

    /** A new directory {@code target/<prefix>...} (absolute), the servers' data and sockets. */
    private static Path privateDirectory(String prefix) throws IOException {
        return Files.createTempDirectory(Files.createDirectories(Path.of("target").toAbsolutePath()), prefix);
    }

    private static List<String> concat(List<String> first, String... rest) {
        List<String> all = new ArrayList<>(first);
        all.addAll(List.of(rest));
        return all;
    }

    /** Runs {@code command} to its end (120 s at most), its output appended to {@code log}; fails unless it exits 0. */
    private static void run(Path log, List<String> command) throws Exception {
        run(log, null, command);
    }

    /** {@link #run(Path, List)} in directory {@code cwd} ({@code null}: this process's). */
    private static void run(Path log, Path cwd, List<String> command) throws Exception {
        Process p = new ProcessBuilder(command).directory(cwd == null ? null : cwd.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + Files.readString(log));
        }
    }

    private static void stopProcess(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
