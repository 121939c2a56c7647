package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Caffeine;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The isolation at Caffeine in real child JVMs ({@link ChildJvm}: the real agent, the built extension) running {@link
 * CaffeineTestApp}, which has no Richter code: one on Caffeine 3.1.8 and one on 2.9.3 (its jar first on the class
 * path, {@code richter.caffeine29.jar}), both with a loaded document; and one on 3.1.8 whose document cannot load;
 * Spring's {@code ConcurrentMapCache} (spring-context 6.2.12) beside Caffeine in each.
 * Every count is the app's own: the value its cache answered the caller, and how many times the cache's loader or
 * mapping function ran. A marked call ({@code baggage: richter-loadtest=1}) runs on the cache's shadow: what it puts,
 * computes or loads is never answered to an unmarked caller, and it neither reads, overwrites, invalidates nor evicts
 * a production entry.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CaffeineIsolationIT {
    /** Caffeine's {@code Cache}, {@code AsyncCache}, unbounded {@code Cache}, and Spring's {@code ConcurrentMapCache}. */
    private static final List<String> SYNC_AND_ASYNC = List.of("manual", "async", "unbounded", "spring");

    private ChildJvm caffeine3;
    private ChildJvm caffeine29;
    private ChildJvm notLoaded;

    @BeforeAll
    void start() throws Exception {
        Path document = Files.writeString(Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")),
                "isolation", ".json"), """
                {"mode": "enforce", "refreshS": 30, "scope": [], "mocks": []}
                """);
        String caffeine29Jar = System.getProperty("richter.caffeine29.jar");
        assertTrue(caffeine29Jar != null && Files.isRegularFile(Path.of(caffeine29Jar)),
                "richter.caffeine29.jar must name Caffeine 2.9's jar (mvn verify copies it), got " + caffeine29Jar);
        caffeine3 = new ChildJvm(ChildJvm.serviceJava(), List.of("-Drichter.isolation.file=" + document),
                CaffeineTestApp.class, List.of(), List.of(Caffeine.class));
        caffeine29 = new ChildJvm(ChildJvm.serviceJava(), List.of("-Drichter.isolation.file=" + document),
                CaffeineTestApp.class, List.of(caffeine29Jar), List.of());
        notLoaded = new ChildJvm(ChildJvm.serviceJava(), List.of("-Drichter.isolation.file=" + document
                + ".absent"), CaffeineTestApp.class, List.of(), List.of(Caffeine.class));
    }

    @AfterAll
    void stop() {
        ChildJvm.closeAll(caffeine3, caffeine29, notLoaded);
    }

    private Map<String, ChildJvm> apps() {
        return Map.of("3", caffeine3, "2", caffeine29);
    }

    @Test
    void theAppsRunTheCaffeineTheyAreNamedFor() throws Exception {
        for (Map.Entry<String, ChildJvm> app : apps().entrySet()) {
            assertEquals(app.getKey(), value(call(app.getValue(), "manual", "version", "", "", null)));
        }
    }

    @Test
    void aValueAMarkedGetComputesIsNeverAnsweredToAnUnmarkedGetOfTheSameKey() throws Exception {
        for (Map.Entry<String, ChildJvm> entry : apps().entrySet()) {
            ChildJvm app = entry.getValue();
            for (String cache : SYNC_AND_ASYNC) {
                String at = "Caffeine " + entry.getKey() + " " + cache;
                int loads = loads(app, cache);

                assertEquals(answer("shadow", loads + 1), call(app, cache, "get", "stock:1", "shadow", MARKED), at);
                assertEquals(answer("null", loads + 1), call(app, cache, "getIfPresent", "stock:1", "", null), at);
                assertEquals(answer("production", loads + 2), call(app, cache, "get", "stock:1", "production", null),
                        at + ": the unmarked get loads its own value");
                assertEquals(answer("shadow", loads + 2), call(app, cache, "get", "stock:1", "other", MARKED),
                        at + ": the marked get is a hit in the shadow");
                assertEquals(answer("production", loads + 2), call(app, cache, "get", "stock:1", "other", null),
                        at + ": the unmarked get is a hit in production");
            }
        }
    }

    @Test
    void aLoadingCachesLoaderRunsForTheMarkedAndTheUnmarkedCallerEachAndEachKeepsItsOwn() throws Exception {
        for (Map.Entry<String, ChildJvm> entry : apps().entrySet()) {
            ChildJvm app = entry.getValue();
            String at = "Caffeine " + entry.getKey();
            int loads = loads(app, "loading");

            assertEquals(answer("loaded#" + (loads + 1), loads + 1), call(app, "loading", "get", "sku:7", "", MARKED), at);
            assertEquals(answer("loaded#" + (loads + 2), loads + 2), call(app, "loading", "get", "sku:7", "", null), at);
            assertEquals(answer("loaded#" + (loads + 1), loads + 2), call(app, "loading", "get", "sku:7", "", MARKED), at);
            assertEquals(answer("loaded#" + (loads + 2), loads + 2), call(app, "loading", "getIfPresent", "sku:7", "",
                    null), at);
        }
    }

    /**
     * Issue 40: a marked read of shadow data, cached by {@code @Cacheable} over Spring 6.2's {@code
     * CaffeineCacheManager} (Caffeine 3, the one Spring 6 is for), must never be served to a real user.
     */
    @Test
    void aCacheableMethodsMarkedResultIsNeverServedToAnUnmarkedCallerOverCaffeineCacheManager() throws Exception {
        String first = call(caffeine3, "cacheable", "get", "sku:40", "", MARKED);
        int marked = Integer.parseInt(value(first).substring("stock#".length()));

        assertEquals(answer("stock#" + (marked + 1), marked + 1), call(caffeine3, "cacheable", "get", "sku:40", "",
                null), "the unmarked caller's read runs the method, not the marked one's cached result");
        assertEquals(answer("stock#" + marked, marked + 1), call(caffeine3, "cacheable", "get", "sku:40", "", MARKED),
                "the marked caller hits its own cached result");
        assertEquals(answer("stock#" + (marked + 1), marked + 1), call(caffeine3, "cacheable", "get", "sku:40", "",
                null), "the unmarked caller hits its own");
    }

    @Test
    void markedPutsAndInvalidationsStayInTheShadowAndUnmarkedOnesAreUnchanged() throws Exception {
        for (Map.Entry<String, ChildJvm> entry : apps().entrySet()) {
            ChildJvm app = entry.getValue();
            for (String cache : SYNC_AND_ASYNC) {
                String at = "Caffeine " + entry.getKey() + " " + cache;
                int loads = loads(app, cache);
                call(app, cache, "put", "put:m", "marked", MARKED);
                call(app, cache, "put", "put:u", "production", null);

                assertEquals(answer("null", loads), call(app, cache, "getIfPresent", "put:m", "", null), at);
                assertEquals(answer("marked", loads), call(app, cache, "getIfPresent", "put:m", "", MARKED),
                        at + ": marked work reads back what it put");
                assertEquals(answer("null", loads), call(app, cache, "getIfPresent", "put:u", "", MARKED),
                        at + ": a marked read does not see production");

                call(app, cache, "invalidate", "put:u", "", MARKED);
                call(app, cache, "invalidateAll", "", "", MARKED);
                assertEquals(answer("production", loads), call(app, cache, "getIfPresent", "put:u", "", null), at);
                assertEquals(answer("null", loads), call(app, cache, "getIfPresent", "put:m", "", MARKED),
                        at + ": the marked invalidateAll cleared the shadow");

                call(app, cache, "invalidate", "put:u", "", null);
                assertEquals(answer("null", loads), call(app, cache, "getIfPresent", "put:u", "", null), at);
            }
        }
    }

    @Test
    void markedEntriesDoNotEvictProductionOnesFromABoundedCache() throws Exception {
        for (Map.Entry<String, ChildJvm> entry : apps().entrySet()) {
            ChildJvm app = entry.getValue();
            String at = "Caffeine " + entry.getKey();
            for (String key : List.of("a", "b", "c")) {
                call(app, "small", "put", key, "production", null);
            }
            for (int i = 0; i < 10; i++) {
                call(app, "small", "put", "m" + i, "marked", MARKED);
            }
            call(app, "small", "cleanUp", "", "", null);
            call(app, "small", "cleanUp", "", "", MARKED);

            assertEquals(answer("a,b,c", 0), call(app, "small", "keys", "", "", null), at);
            String shadowKeys = value(call(app, "small", "keys", "", "", MARKED));
            List<String> keys = Arrays.asList(shadowKeys.split(","));
            assertTrue(keys.size() <= 3 && keys.stream().allMatch(k -> k.startsWith("m")),
                    at + ": the shadow holds marked entries only, at most the cache's maximum: " + shadowKeys);
        }
    }

    @Test
    void beforeTheDocumentLoadsAMarkedRequestNeverReachesTheCacheAndUnmarkedOnesAreServed() throws Exception {
        var refused = notLoaded.get("/cache?cache=manual&op=get&key=stock:1&value=shadow", MARKED);
        assertEquals(503, refused.statusCode(), refused.body());

        assertEquals(answer("production", 1), call(notLoaded, "manual", "get", "stock:1", "production", null));
        assertEquals(answer("production", 1), call(notLoaded, "manual", "get", "stock:1", "other", null));
        assertFalse(notLoaded.output().contains("refused a marked call to exit 'caffeine"), notLoaded.output());
    }

    private static String answer(String value, int loads) {
        return "value=" + value + ";loads=" + loads;
    }

    private static String value(String answer) {
        assertTrue(answer.startsWith("value="), answer);
        return answer.substring("value=".length(), answer.indexOf(";loads="));
    }

    /** How many times {@code cache}'s loader has run so far (an unmarked look-up of a key never put). */
    private static int loads(ChildJvm app, String cache) throws Exception {
        String a = call(app, cache, "getIfPresent", "never-put", "", null);
        assertTrue(a.startsWith("value=null;loads="), a);
        return Integer.parseInt(a.substring("value=null;loads=".length()));
    }

    private static String call(ChildJvm app, String cache, String op, String key, String value, String baggage)
            throws Exception {
        var response = app.get("/cache?cache=" + cache + "&op=" + op + "&key=" + key + "&value=" + value, baggage);
        assertEquals(200, response.statusCode(), response.body());
        return response.body();
    }
}
