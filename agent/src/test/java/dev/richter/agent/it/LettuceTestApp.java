package dev.richter.agent.it;

import com.sun.net.httpserver.HttpServer;
import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.data.redis.core.StringRedisTemplate;
import reactor.core.publisher.Mono;

/**
 * A service with no Richter code that uses Redis through Lettuce 6.6 ({@code -Dapp.redis.port}), for {@link
 * LettuceIsolationIT} and the leak matrix: a JDK {@code HttpServer} on an ephemeral port (prints {@code READY <port>})
 * answering {@code /lettuce?api=<api>&op=set|get|mset|mget|del&key=<keys, comma-separated>&value=<value>} with {@code
 * ok=<reply>} or {@code error=<exception class>: <message>} (the causes' too). {@code mset} sets every key to {@code
 * value} in one command, {@code del} and {@code mget} take every key in one command. The APIs:
 * <ul>
 *   <li>{@code sync}, {@code async}, {@code reactive}: one {@code StatefulRedisConnection} opened at start (unmarked),
 *       {@code sync()}, {@code async()} (waiting for the future) and {@code reactive()} (subscribed by {@code
 *       block()} on the request's thread);</li>
 *   <li>{@code elsewhere}: the reactive API's {@code Mono} built on the request's thread and subscribed on a thread
 *       started at start, which never carries the request's context ({@link ContextFreeSubscriber});</li>
 *   <li>{@code fresh}: a connection opened by the request itself, used once and closed;</li>
 *   <li>{@code template}, {@code reactive-template}: Spring Data Redis's {@code StringRedisTemplate} and {@code
 *       ReactiveStringRedisTemplate} over one {@code LettuceConnectionFactory} (its shared native connection, opened
 *       at its first use).</li>
 * </ul>
 */
public final class LettuceTestApp {
    private LettuceTestApp() {}

    public static void main(String[] args) throws Exception {
        int port = Integer.getInteger("app.redis.port");
        RedisClient client = RedisClient.create(RedisURI.create("127.0.0.1", port));
        StatefulRedisConnection<String, String> connection = client.connect();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration("127.0.0.1", port));
        factory.afterPropertiesSet();
        factory.start();
        StringRedisTemplate template = new StringRedisTemplate(factory);
        ReactiveStringRedisTemplate reactiveTemplate = new ReactiveStringRedisTemplate(factory);
        ContextFreeSubscriber elsewhere = new ContextFreeSubscriber();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/lettuce", exchange -> {
            Map<String, String> q = StorageTestApp.query(exchange);
            String api = q.get("api");
            String op = q.get("op");
            List<String> keys = List.of(q.get("key").split(","));
            String value = q.getOrDefault("value", "");
            String answer;
            try {
                Object reply = switch (api) {
                    case "sync" -> sync(connection, op, keys, value);
                    case "async" -> async(connection, op, keys, value).get(10, TimeUnit.SECONDS);
                    case "reactive" -> reactive(connection, op, keys, value).block(Duration.ofSeconds(10));
                    case "elsewhere" -> elsewhere.block(reactive(connection, op, keys, value));
                    case "fresh" -> {
                        try (StatefulRedisConnection<String, String> c = client.connect()) {
                            yield sync(c, op, keys, value);
                        }
                    }
                    case "template" -> template(template, op, keys, value);
                    case "reactive-template" -> reactiveTemplate(reactiveTemplate, op, keys, value)
                            .block(Duration.ofSeconds(10));
                    default -> throw new IllegalArgumentException("unknown api " + api);
                };
                answer = "ok=" + reply;
            } catch (Exception e) {
                StringBuilder b = new StringBuilder("error=");
                for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
                    b.append(t.getClass().getName()).append(": ").append(t.getMessage()).append(" / ");
                }
                answer = b.toString();
            }
            CountingServer.answer(exchange, 200, answer);
        });
        server.start();
        System.out.println("READY " + server.getAddress().getPort());
    }

    private static Map<String, String> each(List<String> keys, String value) {
        Map<String, String> out = new LinkedHashMap<>();
        keys.forEach(k -> out.put(k, value));
        return out;
    }

    private static Object sync(StatefulRedisConnection<String, String> c, String op, List<String> keys, String value) {
        return switch (op) {
            case "set" -> c.sync().set(keys.get(0), value);
            case "mset" -> c.sync().mset(each(keys, value));
            case "del" -> c.sync().del(keys.toArray(String[]::new));
            case "mget" -> values(c.sync().mget(keys.toArray(String[]::new)));
            default -> c.sync().get(keys.get(0));
        };
    }

    private static CompletableFuture<?> async(StatefulRedisConnection<String, String> c, String op, List<String> keys,
                                              String value) {
        return switch (op) {
            case "set" -> c.async().set(keys.get(0), value).toCompletableFuture();
            case "mset" -> c.async().mset(each(keys, value)).toCompletableFuture();
            case "del" -> c.async().del(keys.toArray(String[]::new)).toCompletableFuture();
            case "mget" -> c.async().mget(keys.toArray(String[]::new)).thenApply(LettuceTestApp::values)
                    .toCompletableFuture();
            default -> c.async().get(keys.get(0)).toCompletableFuture();
        };
    }

    private static Mono<?> reactive(StatefulRedisConnection<String, String> c, String op, List<String> keys,
                                    String value) {
        return switch (op) {
            case "set" -> c.reactive().set(keys.get(0), value);
            case "mset" -> c.reactive().mset(each(keys, value));
            case "del" -> c.reactive().del(keys.toArray(String[]::new));
            case "mget" -> c.reactive().mget(keys.toArray(String[]::new)).collectList().map(LettuceTestApp::values);
            default -> c.reactive().get(keys.get(0));
        };
    }

    private static Object template(StringRedisTemplate t, String op, List<String> keys, String value) {
        return switch (op) {
            case "set" -> {
                t.opsForValue().set(keys.get(0), value);
                yield "OK";
            }
            case "mset" -> {
                t.opsForValue().multiSet(each(keys, value));
                yield "OK";
            }
            case "del" -> t.delete(keys);
            case "mget" -> String.join(",", t.opsForValue().multiGet(keys).stream().map(String::valueOf).toList());
            default -> t.opsForValue().get(keys.get(0));
        };
    }

    private static Mono<?> reactiveTemplate(ReactiveStringRedisTemplate t, String op, List<String> keys, String value) {
        return switch (op) {
            case "set" -> t.opsForValue().set(keys.get(0), value).map(LettuceTestApp::ok);
            case "mset" -> t.opsForValue().multiSet(each(keys, value)).map(LettuceTestApp::ok);
            case "del" -> t.delete(keys.toArray(String[]::new));
            case "mget" -> t.opsForValue().multiGet(keys).map(l -> String.join(",", l.stream().map(String::valueOf).toList()));
            default -> t.opsForValue().get(keys.get(0));
        };
    }

    /** A reactive template's {@code true} as the other APIs answer it. */
    private static String ok(boolean done) {
        return done ? "OK" : "not done";
    }

    /** MGET's values, comma-separated ({@code null} for a key that does not exist). */
    private static String values(List<?> values) {
        return values.stream().map(v -> v instanceof KeyValue<?, ?> kv ? String.valueOf(kv.getValueOrElse(null))
                : String.valueOf(v)).collect(Collectors.joining(","));
    }
}
