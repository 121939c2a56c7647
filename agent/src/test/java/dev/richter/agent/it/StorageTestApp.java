package dev.richter.agent.it;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.h2.jdbcx.JdbcConnectionPool;
import redis.clients.jedis.JedisPooled;

/**
 * A service with no Richter code that writes to a database, a cache and a broker, for {@link StorageIsolationIT}: a
 * JDK {@code
 * HttpServer} on an ephemeral port (prints {@code READY <port>}) answering
 * <ul>
 *   <li>{@code /sql?how=statement|prepared|pool|held&url=<jdbc url>&sql=<sql>}: runs the SQL through {@code
 *       DriverManager} and {@code Statement.execute}, {@code Connection.prepareStatement}, the H2 pool ({@code
 *       -Dapp.pool.url}, one connection), HikariCP ({@code -Dapp.hikari.url}, one connection) or a connection opened at start ({@code -Dapp.held.url}); answers {@code
 *       updated=<n>} or {@code value=<first column of the first row>}, then {@code  schema=<connection's schema>},
 *       or {@code error=<exception class>: <message>}; {@code /sql?how=heldprepared}: runs the {@code INSERT INTO
 *       visits}
 *       prepared at start on {@code -Dapp.shop.url};</li>
 *   <li>{@code /redis?op=set|get|mset|del&key=<key>&value=<value>} through Jedis ({@code -Dapp.redis.port}; {@code
 *       mset} and {@code del} take keys comma-separated, one command for all, every {@code mset} key set to {@code
 *       value}): {@code ok=<reply>} or {@code error=...};</li>
 *   <li>{@code /kafka?topic=<topic>&value=<value>} through a {@code KafkaProducer} ({@code -Dapp.kafka.bootstrap}),
 *       waiting for the broker's answer: {@code ok=<the topic written>} or {@code error=...}.</li>
 * </ul>
 */
public final class StorageTestApp {
    private StorageTestApp() {}

    public static void main(String[] args) throws Exception {
        JdbcConnectionPool pool = JdbcConnectionPool.create(System.getProperty("app.pool.url"), "sa", "");
        pool.setMaxConnections(1);
        HikariConfig hikariConfig = new HikariConfig();
        hikariConfig.setJdbcUrl(System.getProperty("app.hikari.url"));
        hikariConfig.setUsername("sa");
        hikariConfig.setPassword("");
        hikariConfig.setMaximumPoolSize(1);
        HikariDataSource hikari = new HikariDataSource(hikariConfig);
        Connection held = DriverManager.getConnection(System.getProperty("app.held.url"), "sa", "");
        PreparedStatement heldPrepared = DriverManager.getConnection(System.getProperty("app.shop.url"), "sa", "")
                .prepareStatement("INSERT INTO visits (page) VALUES ('held')");
        JedisPooled redis = new JedisPooled("127.0.0.1", Integer.getInteger("app.redis.port"));
        Properties kafkaConfig = new Properties();
        kafkaConfig.put("bootstrap.servers", System.getProperty("app.kafka.bootstrap"));
        kafkaConfig.put("key.serializer", StringSerializer.class.getName());
        kafkaConfig.put("value.serializer", StringSerializer.class.getName());
        kafkaConfig.put("max.block.ms", "10000");
        KafkaProducer<String, String> kafka = new KafkaProducer<>(kafkaConfig);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/sql", exchange -> {
            Map<String, String> q = query(exchange);
            String answer;
            try {
                answer = switch (q.get("how")) {
                    case "statement" -> {
                        try (Connection c = DriverManager.getConnection(q.get("url"), "sa", "")) {
                            yield run(c, q.get("sql"), false);
                        }
                    }
                    case "prepared" -> {
                        try (Connection c = DriverManager.getConnection(q.get("url"), "sa", "")) {
                            yield run(c, q.get("sql"), true);
                        }
                    }
                    case "pool" -> {
                        try (Connection c = pool.getConnection()) {
                            yield run(c, q.get("sql"), false);
                        }
                    }
                    case "hikari" -> {
                        try (Connection c = hikari.getConnection()) {
                            yield run(c, q.get("sql"), false);
                        }
                    }
                    case "held" -> run(held, q.get("sql"), false);
                    case "heldprepared" -> "updated=" + heldPrepared.executeUpdate();
                    default -> "error=unknown how";
                };
            } catch (Exception e) {
                answer = "error=" + e.getClass().getName() + ": " + e.getMessage();
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.createContext("/redis", exchange -> {
            Map<String, String> q = query(exchange);
            String answer;
            try {
                answer = "ok=" + switch (q.get("op")) {
                    case "set" -> redis.set(q.get("key"), q.get("value"));
                    // keys comma-separated: MSET k1 v k2 v ..., DEL k1 k2 ...
                    case "mset" -> redis.mset(Arrays.stream(q.get("key").split(","))
                            .flatMap(k -> Stream.of(k, q.get("value"))).toArray(String[]::new));
                    case "del" -> String.valueOf(redis.del(q.get("key").split(",")));
                    default -> redis.get(q.get("key"));
                };
            } catch (Exception e) {
                answer = "error=" + e.getClass().getName() + ": " + e.getMessage();
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.createContext("/kafka", exchange -> {
            Map<String, String> q = query(exchange);
            String answer;
            try {
                answer = "ok=" + kafka.send(new ProducerRecord<>(q.get("topic"), q.get("value"))).get(10, TimeUnit.SECONDS)
                        .topic();
            } catch (Exception e) {
                answer = "error=" + e.getClass().getName() + ": " + e.getMessage();
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    /** Runs {@code sql} on {@code c}: {@code updated=<n>} or {@code value=<first column>}, then {@code  schema=<schema>}. */
    static String run(Connection c, String sql, boolean prepared) throws Exception {
        String result;
        if (prepared) {
            try (PreparedStatement p = c.prepareStatement(sql)) {
                result = p.execute() ? first(p.getResultSet()) : "updated=" + p.getUpdateCount();
            }
        } else {
            try (Statement s = c.createStatement()) {
                result = s.execute(sql) ? first(s.getResultSet()) : "updated=" + s.getUpdateCount();
            }
        }
        return result + " schema=" + c.getSchema();
    }

    static String first(ResultSet rs) throws Exception {
        return rs.next() ? "value=" + rs.getString(1) : "value=";
    }

    /** The request's query parameters, decoded. */
    static Map<String, String> query(HttpExchange exchange) {
        Map<String, String> out = new HashMap<>();
        String raw = exchange.getRequestURI().getRawQuery();
        for (String pair : raw == null ? new String[0] : raw.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
                    URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }
}
