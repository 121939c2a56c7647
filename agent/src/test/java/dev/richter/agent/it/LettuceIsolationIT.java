package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.Jedis;

/**
 * The isolation at Lettuce 6.6.0 in a real child JVM ({@link ChildJvm}, the real agent and the built extension, the
 * network catch-all on) running {@link LettuceTestApp}, which has no Richter code: Lettuce's sync, async and reactive
 * APIs (the reactive one also subscribed on a thread that never carries the request's context), a connection opened
 * by a marked request, and Spring Data Redis 3.5's {@code StringRedisTemplate} and {@code
 * ReactiveStringRedisTemplate} over {@code LettuceConnectionFactory}, to a {@code redis-server} this test starts on an
 * ephemeral port. Lettuce runs on Netty's NIO transport ({@code -Dio.lettuce.core.epoll=false}), whose sockets the
 * catch-all sees. The document maps {@code stock:} to {@code shadow:stock:} and has an empty scope, so the catch-all
 * would refuse any marked connection to Redis that no guard decided. Every count is read by this test through its own
 * Jedis connection (no agent here): Redis's keys and values.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class LettuceIsolationIT {
    /** The APIs of {@link LettuceTestApp}, the template first: its shared connection opens at a marked request. */
    static final List<String> APIS = List.of("template", "sync", "async", "reactive", "elsewhere", "fresh",
            "reactive-template");

    private Process redisServer;
    private int redisPort;
    private ChildJvm app;

    @BeforeAll
    void start() throws Exception {
        redisPort = StorageIsolationIT.freePort();
        redisServer = StorageIsolationIT.startRedis(redisPort);
        try (Jedis jedis = redis()) {
            jedis.set("config:flag", "on");
        }
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "refreshS": 30, "scope": [], "mocks": [],
                 "shadows": [{"kind": "cache", "production": "stock:", "shadow": "shadow:stock:", "service": "shop"}]}
                """);
        app = new ChildJvm(List.of("-Drichter.isolation.file=" + document, "-Dapp.redis.port=" + redisPort,
                "-Dio.lettuce.core.epoll=false"), LettuceTestApp.class, List.of());
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(app);
        if (redisServer != null) {
            redisServer.destroyForcibly();
        }
    }

    @Test
    @Order(1)
    void aMarkedSetThroughEveryApiWritesTheShadowKeyAndAnUnmarkedOneProduction() throws Exception {
        for (String api : APIS) {
            assertEquals("ok=OK", lettuce(api, "set", "stock:" + api, "m", MARKED), api);
            assertEquals("ok=OK", lettuce(api, "set", "stock:" + api, "u", null), api);
        }

        try (Jedis jedis = redis()) {
            for (String api : APIS) {
                assertEquals("m", jedis.get("shadow:stock:" + api), api);
                assertEquals("u", jedis.get("stock:" + api), api);
            }
            assertEquals(2 * APIS.size() + 1, jedis.dbSize(), "the shadow and production key of each, config:flag");
        }
    }

    @Test
    @Order(2)
    void markedReadsSeeTheShadowKeyAndReadUnmappedKeysAsTheyAre() throws Exception {
        for (String api : APIS) {
            assertEquals("ok=m", lettuce(api, "get", "stock:" + api, "", MARKED), api);
            assertEquals("ok=u", lettuce(api, "get", "stock:" + api, "", null), api);
            assertEquals("ok=on", lettuce(api, "get", "config:flag", "", MARKED), api);
            // MGET: every argument a key, the shadow one read for the mapped key
            assertEquals("ok=m,on", lettuce(api, "mget", "stock:" + api + ",config:flag", "", MARKED), api);
        }
    }

    @Test
    @Order(3)
    void aMarkedWriteToAnUnmappedKeyIsRefusedNamingItAndNothingIsWritten() throws Exception {
        Map<String, String> before = everything();
        for (String api : APIS) {
            String refused = lettuce(api, "set", "session:" + api, "x", MARKED);
            assertTrue(refused.startsWith("error=") && refused.contains("io.lettuce.core.RedisException: Richter"
                    + " isolation refused a marked call to exit 'redis SET session:" + api + "': a marked write to key"
                    + " 'session:" + api + "'"), api + ": " + refused);
        }

        assertEquals(before, everything());
    }

    @Test
    @Order(4)
    void multiKeyCommandsHaveTheirKeysReplacedAtTheSpecificationsPositionsOnly() throws Exception {
        for (String api : APIS) {
            // MSET k1 v k2 v with each value the name of the second key: located by matching values, a value would be
            // taken for a key
            String k1 = "stock:" + api + ":1";
            String k2 = "stock:" + api + ":2";
            assertEquals("ok=OK", lettuce(api, "mset", k1 + "," + k2, k2, MARKED), api);
            try (Jedis jedis = redis()) {
                assertEquals(k2, jedis.get("shadow:" + k1), api);
                assertEquals(k2, jedis.get("shadow:" + k2), api);
                assertEquals(0, jedis.exists(k1, k2), api);
            }
            assertEquals("ok=" + k2 + "," + k2 + ",null", lettuce(api, "mget", k1 + "," + k2 + ",stock:none", "",
                    MARKED), api);
        }
    }

    @Test
    @Order(5)
    void aMarkedMultiKeyWriteWithOneUnmappedKeyIsRefusedWhole() throws Exception {
        try (Jedis jedis = redis()) {
            jedis.set("stock:d1", "keep");
            jedis.set("session:d2", "keep");
        }
        Map<String, String> before = everything();
        for (String api : APIS) {
            String del = lettuce(api, "del", "stock:d1,session:d2", "", MARKED);
            assertTrue(del.contains("Richter isolation refused a marked call to exit 'redis DEL session:d2'"),
                    api + ": " + del);
            String mset = lettuce(api, "mset", "stock:" + api + ":3,session:" + api, "x", MARKED);
            assertTrue(mset.contains("Richter isolation refused a marked call to exit 'redis MSET session:" + api
                    + "'"), api + ": " + mset);
        }

        assertEquals(before, everything(), "neither the production keys nor the mapped key's shadow were written");
        assertEquals("ok=2", lettuce("sync", "del", "stock:d1,session:d2", "", null), "unmarked: production");
    }

    @Test
    @Order(6)
    void theDecisionsAreStampedOnTheSpansAndTheCatchAllRefusedNoLettuceConnection() throws Exception {
        List<Span> spans = app.stopAndReadSpans();

        // stamped on the span current where the command is sent: none on the thread that never carries the context
        for (String api : APIS.stream().filter(a -> !a.equals("elsewhere")).toList()) {
            assertTrue(spans.stream().anyMatch(s -> ("shadow:stock:" + api).equals(s.attributes()
                    .get("richter.shadow.target"))), api + ": " + spans);
            assertTrue(spans.stream().anyMatch(s -> s.attributes().getOrDefault("richter.refused", "")
                    .contains("key 'session:" + api + "'")), api);
        }
        // the proof that the hand-off's commands were sent where the request's context was not current: had it been,
        // its server span would carry their stamps; they were still decided as marked (the counts above)
        assertTrue(spans.stream().noneMatch(s -> s.attributes().getOrDefault("richter.shadow.target", "")
                .contains("elsewhere")), "sent off the request's context");
        assertTrue(spans.stream().noneMatch(s -> s.attributes().getOrDefault("richter.refused", "")
                .contains("refused at the network")), "the catch-all refused a Lettuce connection: " + spans);
        assertTrue(spans.stream().noneMatch(s -> s.attributes().containsKey("richter.would_refuse")));
    }

    /** Every key of Redis with its value (strings only), read by this test's own connection. */
    private Map<String, String> everything() {
        Map<String, String> out = new HashMap<>();
        try (Jedis jedis = redis()) {
            for (String key : new TreeSet<>(jedis.keys("*"))) {
                out.put(key, jedis.get(key));
            }
        }
        return out;
    }

    private String lettuce(String api, String op, String keys, String value, String baggage) throws Exception {
        return app.get("/lettuce?api=" + api + "&op=" + op + "&key=" + enc(keys) + "&value=" + enc(value), baggage)
                .body();
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private Jedis redis() {
        return new Jedis("127.0.0.1", redisPort);
    }
}
