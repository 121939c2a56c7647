package dev.richter.agent.it;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.Map;

/**
 * A service with no Richter code that runs SQL through whichever JDBC driver is on its class path (HSQLDB, PostgreSQL,
 * MariaDB), for {@link JdbcDriverIsolation}'s ITs and {@link LeakMatrix}: a JDK {@code HttpServer} on an ephemeral
 * port (prints {@code READY <port>}) answering {@code /sql?how=statement|prepared&url=<jdbc url>&user=<u>&password=<p>
 * &sql=<sql>}: a connection from {@code DriverManager} per request, the SQL run by {@code Statement.execute} or {@code
 * Connection.prepareStatement}; answers as {@link StorageTestApp}'s {@code /sql} ({@code updated=<n> schema=<s>},
 * {@code value=<v> schema=<s>} or {@code error=<exception class>: <message>}).
 */
public final class JdbcTestApp {
    private JdbcTestApp() {}

    public static void main(String[] args) throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/sql", exchange -> {
            Map<String, String> q = StorageTestApp.query(exchange);
            String answer;
            try (Connection c = DriverManager.getConnection(q.get("url"), q.getOrDefault("user", ""),
                    q.getOrDefault("password", ""))) {
                answer = StorageTestApp.run(c, q.get("sql"), "prepared".equals(q.get("how")));
            } catch (Exception e) {
                answer = "error=" + e.getClass().getName() + ": " + e.getMessage();
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }
}
