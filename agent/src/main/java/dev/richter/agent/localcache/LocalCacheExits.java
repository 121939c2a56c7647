package dev.richter.agent.localcache;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;

/**
 * The isolation at in-process caches: Caffeine (2.9 and 3.x; {@code Cache}, {@code LoadingCache}, {@code AsyncCache},
 * {@code AsyncLoadingCache}, their {@code asMap()} and {@code synchronous()} views, and what runs on them: Spring's
 * {@code CaffeineCache} under {@code @Cacheable}), where every call reaches one {@code LocalCache} ({@code
 * BoundedLocalCache} or {@code UnboundedLocalCache}); and Spring's {@code ConcurrentMapCache} (the default store of
 * {@code @Cacheable} without a cache library). The advice on their data methods calls this helper.
 *
 * <p>The rule: a call made while the current OpenTelemetry context is marked ({@link IsolationGuard#marked()}) runs,
 * unchanged, on the cache's <em>shadow</em> ({@link LocalCacheShadows}), a second cache built like it, never on the
 * cache itself. So nothing a marked call puts, computes or loads is ever returned to an unmarked caller; no marked
 * call reads, overwrites, invalidates or (through the maximum size) evicts a production entry; and marked traffic
 * still meets a cache of the same size and expiry, so its hit rates and the load behind the cache are realistic. The
 * rule needs nothing from the isolation document (it holds before one has loaded: fail closed). When no shadow can be
 * made (Caffeine's internals differ), the marked call is refused: {@link IllegalStateException} naming the reason,
 * recorded as {@code richter.refused}; the cache is not touched. Unmarked calls are not looked at beyond the marker.
 * Injected by the agent as a helper next to the cache library; no lambdas.
 */
public final class LocalCacheExits {
    private LocalCacheExits() {}

    /** Whether the current context carries the load-test marker; {@code false} when it cannot be read. */
    public static boolean marked() {
        try {
            return IsolationBridge.guard().marked();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /**
     * After a Caffeine {@code LocalCache}'s constructor: remembers how it was built, so that its shadow can be built alike.
     *
     * @param cache     the cache just built
     * @param arguments its constructor's arguments: the {@code Caffeine} builder, for a bounded cache its loader
     *                  ({@code null} for a manual cache), and whether it is async
     */
    public static void constructed(Object cache, Object[] arguments) {
        try {
            LocalCacheShadows.constructed(cache, arguments);
        } catch (RuntimeException | LinkageError e) {
            // a marked call on this cache is then refused (shadowOf: not known)
        }
    }

    /**
     * A marked call on {@code cache}: the same method, with the same arguments, on its shadow.
     *
     * @param method     the method's name, e.g. {@code computeIfAbsent}
     * @param descriptor its JVM descriptor, e.g. {@code (Ljava/lang/Object;Ljava/util/function/Function;ZZ)Ljava/lang/Object;}
     * @param arguments  its arguments (primitives boxed)
     * @return {@code null} when {@code cache} is itself a shadow (the call runs on it); else one element: what the
     *     shadow's call returned ({@code null} for a {@code void} method)
     * @throws IllegalStateException when no shadow can be made (the call is refused and recorded); whatever the
     *                               shadow's call threw (a loader's exception), as it is
     */
    public static Object[] onShadow(Object cache, String method, String descriptor, Object[] arguments) {
        Object shadow;
        Method m;
        try {
            shadow = LocalCacheShadows.shadowOf(cache);
            if (shadow == null) {
                return null;
            }
            m = LocalCacheShadows.method(shadow.getClass(), method, descriptor);
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            throw refused(method, e);
        }
        try {
            return new Object[] {m.invoke(shadow, arguments)};
        } catch (InvocationTargetException e) {
            throw LocalCacheExits.<RuntimeException>rethrow(e.getCause());
        } catch (IllegalAccessException e) {
            throw refused(method, e);
        }
    }

    private static IllegalStateException refused(String method, Throwable cause) {
        IsolationGuard guard = IsolationBridge.guard();
        ShadowDecision refusal = ShadowDecision.refuse("caffeine " + method, "no shadow cache could be made for"
                + " this cache (" + cause + "), so a marked call does not touch it");
        guard.record(refusal);
        return new IllegalStateException(refusal.refusal(), cause);
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException rethrow(Throwable t) throws T {
        throw (T) t;
    }
}
