package dev.richter.agent.localcache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.StubGuard;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.cache.concurrent.ConcurrentMapCache;

/**
 * The shadow-cache rule on a real Caffeine 3.1.8 (and Spring's {@code ConcurrentMapCache}), without the agent: the test calls the helper as the advice does
 * ({@link LocalCacheExits#onShadow} with a method's name and descriptor) on a cache's {@code LocalCache} (a sync cache's
 * {@code asMap()}), after telling it how the cache was built ({@link LocalCacheExits#constructed}, the constructor
 * advice's call). Production is read through the cache's own API, which no advice diverts here.
 */
class LocalCacheShadowsTest {
    private static final String PUT = "(Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;";
    private static final String GET_IF_PRESENT = "(Ljava/lang/Object;Z)Ljava/lang/Object;";
    private static final String COMPUTE_IF_ABSENT = "(Ljava/lang/Object;Ljava/util/function/Function;ZZ)Ljava/lang/Object;";

    private final AtomicInteger removals = new AtomicInteger();

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** A bounded cache of 3 entries with a removal listener and statistics, known to the helper. */
    private Map<Object, Object> bounded(Cache<Object, Object>[] production) {
        Caffeine<Object, Object> builder = Caffeine.newBuilder().maximumSize(3).executor(Runnable::run).recordStats()
                .removalListener((k, v, cause) -> removals.incrementAndGet());
        Cache<Object, Object> cache = builder.build();
        production[0] = cache;
        Map<Object, Object> local = cache.asMap();
        LocalCacheExits.constructed(local, new Object[] {builder, null, false});
        return local;
    }

    @SuppressWarnings("unchecked")
    private static Cache<Object, Object>[] one() {
        return new Cache[1];
    }

    @Test
    void aShadowPutIsReadBackFromTheShadowAndNeverFromProduction() {
        Cache<Object, Object>[] production = one();
        Map<Object, Object> local = bounded(production);
        production[0].put("k", "production");

        assertNull(LocalCacheExits.onShadow(local, "put", PUT, new Object[] {"k", "marked"})[0]);

        assertEquals("production", production[0].getIfPresent("k"));
        assertEquals("marked", LocalCacheExits.onShadow(local, "getIfPresent", GET_IF_PRESENT, new Object[] {"k", true})[0]);
        assertNull(LocalCacheExits.onShadow(local, "getIfPresent", GET_IF_PRESENT, new Object[] {"other", true})[0],
                "a production entry is not read by a marked call");
        production[0].put("other", "p");
        assertNull(LocalCacheExits.onShadow(local, "getIfPresent", GET_IF_PRESENT, new Object[] {"other", true})[0]);
    }

    @Test
    void aMarkedComputeIfAbsentLoadsIntoTheShadowOnceAndLeavesTheProductionKeyEmpty() {
        Cache<Object, Object>[] production = one();
        Map<Object, Object> local = bounded(production);
        AtomicInteger loads = new AtomicInteger();
        Function<Object, Object> loader = k -> "shadow-data#" + loads.incrementAndGet();

        Object first = LocalCacheExits.onShadow(local, "computeIfAbsent", COMPUTE_IF_ABSENT,
                new Object[] {"k", loader, true, true})[0];
        Object second = LocalCacheExits.onShadow(local, "computeIfAbsent", COMPUTE_IF_ABSENT,
                new Object[] {"k", loader, true, true})[0];

        assertEquals("shadow-data#1", first);
        assertEquals("shadow-data#1", second, "the shadow is a cache: marked hit rates stay real");
        assertEquals(1, loads.get());
        assertNull(production[0].getIfPresent("k"));
        assertEquals("production#2", production[0].get("k", k -> "production#" + loads.incrementAndGet()));
    }

    @Test
    void markedWorkNeitherEvictsNorInvalidatesProductionEntriesAndNoListenerSeesTheShadowsOwn() {
        Cache<Object, Object>[] production = one();
        Map<Object, Object> local = bounded(production);
        production[0].put("a", "1");
        production[0].put("b", "2");
        production[0].put("c", "3");

        for (int i = 0; i < 20; i++) {
            LocalCacheExits.onShadow(local, "put", PUT, new Object[] {"m" + i, "x"});
        }
        LocalCacheExits.onShadow(local, "clear", "()V", new Object[0]);
        LocalCacheExits.onShadow(local, "remove", "(Ljava/lang/Object;)Ljava/lang/Object;", new Object[] {"a"});
        production[0].cleanUp();

        assertEquals(Map.of("a", "1", "b", "2", "c", "3"), Map.copyOf(production[0].asMap()));
        assertEquals(0, removals.get(), "the shadow is built without the application's removal listener");
        assertEquals(0, production[0].stats().requestCount() + production[0].stats().evictionCount(),
                "production's statistics count production's calls only");
    }

    @Test
    void theShadowIsBoundedLikeItsCacheAndIsItselfNeverShadowed() throws Exception {
        Cache<Object, Object>[] production = one();
        Map<Object, Object> local = bounded(production);
        for (int i = 0; i < 20; i++) {
            LocalCacheExits.onShadow(local, "put", PUT, new Object[] {"m" + i, "x"});
        }
        Object shadow = LocalCacheShadows.shadowOf(local);
        assertNotSame(local, shadow);
        assertSame(shadow, LocalCacheShadows.shadowOf(local), "one shadow per cache");
        assertNull(LocalCacheExits.onShadow(shadow, "put", PUT, new Object[] {"k", "v"}), "a shadow runs its own calls");

        LocalCacheShadows.method(shadow.getClass(), "cleanUp", "()V").invoke(shadow);
        long size = (Long) LocalCacheExits.onShadow(local, "estimatedSize", "()J", new Object[0])[0];
        assertTrue(size <= 3, "the shadow's maximum is production's: " + size);
    }

    @Test
    void anUnboundedCacheGetsAnUnboundedShadow() {
        Caffeine<Object, Object> builder = Caffeine.newBuilder();
        Cache<Object, Object> cache = builder.build();
        Map<Object, Object> local = cache.asMap();
        LocalCacheExits.constructed(local, new Object[] {builder, false});

        LocalCacheExits.onShadow(local, "put", PUT, new Object[] {"k", "marked"});

        assertNull(cache.getIfPresent("k"));
        assertEquals(Boolean.TRUE, LocalCacheExits.onShadow(local, "containsKey", "(Ljava/lang/Object;)Z",
                new Object[] {"k"})[0]);
    }

    @Test
    void aSpringConcurrentMapCacheGetsAShadowOfTheSameNameAndSettings() throws Exception {
        ConcurrentMapCache cache = new ConcurrentMapCache("stock", false);
        cache.put("kept", "production");

        MarkedPut.put(cache);

        assertNull(cache.get("k"));
        Object shadow = LocalCacheShadows.shadowOf(cache);
        assertEquals("stock", ((ConcurrentMapCache) shadow).getName());
        assertFalse(((ConcurrentMapCache) shadow).isAllowNullValues());
        assertEquals("marked", LocalCacheExits.onShadow(cache, "lookup", "(Ljava/lang/Object;)Ljava/lang/Object;",
                new Object[] {"k"})[0]);
        LocalCacheExits.onShadow(cache, "clear", "()V", new Object[0]);
        assertEquals("production", cache.get("kept").get());
    }

    /** The marked {@code ConcurrentMapCache.put("k", "marked")}, as its advice makes it. */
    private static final class MarkedPut {
        static void put(ConcurrentMapCache cache) {
            assertNull(LocalCacheExits.onShadow(cache, "put", "(Ljava/lang/Object;Ljava/lang/Object;)V",
                    new Object[] {"k", "marked"})[0]);
        }
    }

    @Test
    void aLoadersExceptionIsThrownAsItIs() {
        Map<Object, Object> local = bounded(one());
        IllegalArgumentException thrown = new IllegalArgumentException("no such stock");
        Function<Object, Object> failing = k -> {
            throw thrown;
        };

        assertSame(thrown, assertThrows(IllegalArgumentException.class, () -> LocalCacheExits.onShadow(local,
                "computeIfAbsent", COMPUTE_IF_ABSENT, new Object[] {"k", failing, true, true})));
    }

    @Test
    void aMarkedCallOnACacheWhoseShadowCannotBeMadeIsRefusedAndTouchesNothing() {
        Map<Object, Object> unknown = new ConcurrentHashMap<>();

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> LocalCacheExits.onShadow(unknown, "put", PUT, new Object[] {"k", "v"}));

        assertTrue(refused.getMessage().startsWith("Richter isolation refused a marked call to exit 'caffeine put':"
                + " no shadow cache could be made"), refused.getMessage());
        assertTrue(unknown.isEmpty());
        assertFalse(LocalCacheShadows.known(unknown));
    }

    @Test
    void theMarkerIsTheGuardsAndDoesNotNeedADocument() {
        assertFalse(LocalCacheExits.marked(), "the guard installed before the extension starts: unmarked");
        IsolationBridge.install(new StubGuard(true));
        assertTrue(LocalCacheExits.marked(), "marked, whatever the document (this guard has none)");
    }

    @Test
    void theDescriptorIsTheJvms() throws Exception {
        assertEquals(COMPUTE_IF_ABSENT, LocalCacheShadows.descriptor(Class.forName(LocalCacheShadows.BOUNDED)
                .getDeclaredMethod("computeIfAbsent", Object.class, Function.class, boolean.class, boolean.class)));
        assertNotNull(LocalCacheShadows.method(Class.forName(LocalCacheShadows.BOUNDED), "estimatedSize", "()J"));
    }
}
