package dev.richter.agent.it;

import com.sun.net.httpserver.HttpServer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * A service with no Richter code that reads a database, for {@link ShadowPreCheckIT}: a JDK {@code HttpServer} on an
 * ephemeral port (prints {@code READY <port>}) answering {@code /ping} ({@code pong}, no database) and {@code
 * /sql?how=hikari|driver&sql=<query>}: the query on a connection from HikariCP ({@code -Dapp.url}, user {@code
 * -Dapp.user}, password the same, a pool of 2 filled at start) or from {@code DriverManager} with the same URL and
 * user; answers {@code value=<first column of the first row>} or {@code error=<exception>}.
 */
public final class PreCheckTestApp {
    private PreCheckTestApp() {}

    public static void main(String[] args) throws Exception {
        String url = System.getProperty("app.url");
        String user = System.getProperty("app.user");
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(user);
        config.setMaximumPoolSize(2);
        HikariDataSource hikari = new HikariDataSource(config);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/ping", exchange -> CountingServer.answer(exchange, 200, "pong"));
        server.createContext("/sql", exchange -> {
            String[] q = exchange.getRequestURI().getRawQuery().split("&", 2);
            String sql = URLDecoder.decode(q[1].substring("sql=".length()), StandardCharsets.UTF_8);
            String answer;
            try (Connection c = "how=hikari".equals(q[0]) ? hikari.getConnection()
                    : DriverManager.getConnection(url, user, user);
                 Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
                answer = rs.next() ? "value=" + rs.getString(1) : "value=";
            } catch (Exception e) {
                answer = "error=" + e;
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }
}
