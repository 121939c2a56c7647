package dev.richter.agent.it;

import com.github.benmanes.caffeine.cache.AsyncCache;
import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.LoadingCache;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.concurrent.ConcurrentMapCache;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * A service with no Richter code that caches in Caffeine (3.1.8, or 2.9.3 when its jar is first on the class path),
 * for {@link CaffeineIsolationIT}: a JDK {@code HttpServer} on an ephemeral port (prints {@code READY <port>})
 * answering {@code /cache?cache=<cache>&op=<op>&key=<key>&value=<value>} with {@code value=<the cache's answer>;loads=<
 * how many times this cache's loader or mapping function ran so far>} or {@code error=<exception class>: <message>}.
 * The caches, built at start (unmarked):
 * <ul>
 *   <li>{@code manual}: {@code Cache}, maximum 100; {@code get} is {@code get(key, k -> value)};</li>
 *   <li>{@code loading}: {@code LoadingCache}, maximum 100, whose loader answers {@code loaded#<its call count>};
 *       {@code get} is {@code get(key)};</li>
 *   <li>{@code async}: {@code AsyncCache}, maximum 100; {@code get} is {@code get(key, k -> value)} waited for;
 *       {@code put} puts a completed future; {@code invalidate}, {@code invalidateAll} through {@code synchronous()};</li>
 *   <li>{@code small}: {@code Cache}, maximum 3, maintenance on the caller's thread;</li>
 *   <li>{@code unbounded}: {@code Cache} with no bound ({@code UnboundedLocalCache});</li>
 *   <li>{@code spring}: Spring's {@code ConcurrentMapCache} (what {@code @Cacheable} calls: {@code get(key,
 *       valueLoader)}, {@code get(key)}, {@code put}, {@code evict}, {@code clear});</li>
 *   <li>{@code cacheable}: {@link CacheableStock}'s {@code @Cacheable} method over {@code CaffeineCacheManager}:
 *       {@code get} calls it with the key; its loads are the method's runs.</li>
 * </ul>
 * Ops: {@code get}, {@code getIfPresent}, {@code put}, {@code invalidate}, {@code invalidateAll}, {@code cleanUp},
 * {@code keys} (the keys of {@code asMap()}, sorted, comma-separated), {@code version} (Caffeine's major version).
 */
public final class CaffeineTestApp {
    private CaffeineTestApp() {}

    public static void main(String[] args) throws Exception {
        Map<String, AtomicInteger> loads = Map.of("manual", new AtomicInteger(), "loading", new AtomicInteger(),
                "async", new AtomicInteger(), "small", new AtomicInteger(), "unbounded", new AtomicInteger(),
                "spring", new AtomicInteger());
        ConcurrentMapCache spring = new ConcurrentMapCache("stock");
        // built at its first use: Spring 6's CaffeineCacheManager is for Caffeine 3, the 2.9 child never asks for it
        CacheableStock.Stock[] cacheable = new CacheableStock.Stock[1];
        Cache<String, String> manual = Caffeine.newBuilder().maximumSize(100).build();
        LoadingCache<String, String> loading = Caffeine.newBuilder().maximumSize(100)
                .build(k -> "loaded#" + loads.get("loading").incrementAndGet());
        AsyncCache<String, String> async = Caffeine.newBuilder().maximumSize(100).buildAsync();
        Cache<String, String> small = Caffeine.newBuilder().maximumSize(3).executor(Runnable::run).build();
        Cache<String, String> unbounded = Caffeine.newBuilder().build();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/cache", exchange -> {
            Map<String, String> q = StorageTestApp.query(exchange);
            String name = q.get("cache");
            String op = q.get("op");
            String key = q.getOrDefault("key", "");
            String value = q.getOrDefault("value", "");
            AtomicInteger counter = name.equals("cacheable") ? CacheableStock.READS : loads.get(name);
            String answer;
            try {
                Object reply;
                if (op.equals("version")) {
                    reply = major();
                } else if (name.equals("cacheable")) {
                    synchronized (cacheable) {
                        if (cacheable[0] == null) {
                            cacheable[0] = new AnnotationConfigApplicationContext(CacheableStock.class)
                                    .getBean(CacheableStock.Stock.class);
                        }
                    }
                    reply = cacheable[0].stock(key);
                } else if (name.equals("spring")) {
                    reply = spring(spring, op, key, value, counter);
                } else if (name.equals("async")) {
                    reply = async(async, op, key, value, counter);
                } else if (name.equals("loading") && op.equals("get")) {
                    reply = loading.get(key);
                } else {
                    Cache<String, String> cache = switch (name) {
                        case "manual" -> manual;
                        case "loading" -> loading;
                        case "small" -> small;
                        case "unbounded" -> unbounded;
                        default -> throw new IllegalArgumentException("unknown cache " + name);
                    };
                    reply = sync(cache, op, key, value, counter);
                }
                answer = "value=" + reply + ";loads=" + counter.get();
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

    /** {@code 3} when Caffeine has {@code Interner} (added in 3.0), else {@code 2}. */
    private static String major() {
        try {
            Class.forName("com.github.benmanes.caffeine.cache.Interner");
            return "3";
        } catch (ClassNotFoundException e) {
            return "2";
        }
    }

    private static Object sync(Cache<String, String> cache, String op, String key, String value,
                               AtomicInteger counter) {
        switch (op) {
            case "get":
                return cache.get(key, k -> {
                    counter.incrementAndGet();
                    return value;
                });
            case "getIfPresent":
                return cache.getIfPresent(key);
            case "put":
                cache.put(key, value);
                return "put";
            case "invalidate":
                cache.invalidate(key);
                return "invalidated";
            case "invalidateAll":
                cache.invalidateAll();
                return "invalidated";
            case "cleanUp":
                cache.cleanUp();
                return "cleaned";
            case "keys":
                return String.join(",", new TreeSet<>(cache.asMap().keySet()));
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static Object spring(ConcurrentMapCache cache, String op, String key, String value,
                                 AtomicInteger counter) {
        switch (op) {
            case "get":
                return cache.get(key, () -> {
                    counter.incrementAndGet();
                    return value;
                });
            case "getIfPresent": {
                var wrapper = cache.get(key);
                return wrapper == null ? null : wrapper.get();
            }
            case "put":
                cache.put(key, value);
                return "put";
            case "invalidate":
                cache.evict(key);
                return "invalidated";
            case "invalidateAll":
                cache.clear();
                return "invalidated";
            case "keys":
                return String.join(",", new TreeSet<>(cache.getNativeCache().keySet().stream().map(String::valueOf)
                        .toList()));
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    private static Object async(AsyncCache<String, String> cache, String op, String key, String value,
                                AtomicInteger counter) throws Exception {
        switch (op) {
            case "get":
                return cache.get(key, k -> {
                    counter.incrementAndGet();
                    return value;
                }).get(10, TimeUnit.SECONDS);
            case "getIfPresent": {
                CompletableFuture<String> f = cache.getIfPresent(key);
                return f == null ? null : f.get(10, TimeUnit.SECONDS);
            }
            case "put":
                cache.put(key, CompletableFuture.completedFuture(value));
                return "put";
            default:
                return sync(cache.synchronous(), op, key, value, counter);
        }
    }
}
