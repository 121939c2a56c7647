package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isConstructor;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at Caffeine's in-process caches (2.9.x and 3.x), and so at Spring's {@code CaffeineCacheManager} and
 * {@code @Cacheable} over it: marked calls run on a shadow cache ({@code dev.richter.agent.localcache.LocalCacheExits}
 * states the rule). Where: the data methods of {@code com.github.benmanes.caffeine.cache.BoundedLocalCache} and
 * {@code UnboundedLocalCache} ({@link #DATA_METHODS}, any arguments, public or not), which every {@code Cache}, {@code
 * LoadingCache}, {@code AsyncCache}, {@code AsyncLoadingCache} and their {@code asMap()} and {@code synchronous()}
 * views call; and their constructors, which say how a cache was built. Helpers {@code dev.richter.agent.localcache.*}
 * injected next to Caffeine. Instrumentation name {@code richter-caffeine}.
 */
public final class CaffeineInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.localcache} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.localcache.LocalCacheExits", "dev.richter.agent.localcache.LocalCacheShadows",
            "dev.richter.agent.localcache.IdentityKey", "dev.richter.agent.localcache.ShadowEntry"));

    /**
     * Every method of a {@code LocalCache} that reads, writes or lists entries (the {@code ConcurrentMap} methods and
     * Caffeine's own: {@code getIfPresent(key, recordStats)}, {@code getIfPresentQuietly}, {@code getAllPresent},
     * {@code computeIfAbsent(key, function, recordStats, recordLoad)}, {@code compute(key, function, expiry, ...)},
     * {@code estimatedSize}, the package-private {@code put(key, value, expiry, onlyIfAbsent)} of {@code
     * Policy.VarExpiration}). Maintenance (eviction, expiry, {@code cleanUp}, statistics, listeners) is not among
     * them: it stays with the cache it runs for, whatever context the executor carried there.
     */
    static final List<String> DATA_METHODS = Collections.unmodifiableList(Arrays.asList("get", "getIfPresent",
            "getIfPresentQuietly", "getAllPresent", "containsKey", "containsValue", "put", "putIfAbsent", "putAll",
            "remove", "replace", "replaceAll", "computeIfAbsent", "computeIfPresent", "compute", "merge", "clear",
            "isEmpty", "size", "estimatedSize", "keySet", "values", "entrySet", "forEach"));

    static final String BOUNDED = "com.github.benmanes.caffeine.cache.BoundedLocalCache";
    static final String UNBOUNDED = "com.github.benmanes.caffeine.cache.UnboundedLocalCache";

    public CaffeineInstrumentationModule() {
        super("richter-caffeine");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Arrays.asList(new LocalCacheInstrumentation(BOUNDED), new LocalCacheInstrumentation(UNBOUNDED));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }

    /** One of Caffeine's two {@code LocalCache} classes: its constructors and data methods. */
    static final class LocalCacheInstrumentation implements TypeInstrumentation {
        private final String type;

        LocalCacheInstrumentation(String type) {
            this.type = type;
        }

        @Override
        public ElementMatcher<ClassLoader> classLoaderOptimization() {
            return AgentElementMatchers.hasClassesNamed(type);
        }

        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named(type);
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isConstructor(), CaffeineBuiltAdvice.class.getName());
            ElementMatcher.Junction<MethodDescription> data = isMethod().and(not(isStatic())).and(not(isAbstract()))
                    .and(namedOneOf(DATA_METHODS.toArray(new String[0])));
            transformer.applyAdviceToMethod(data.and(returns(void.class)), LocalCacheVoidCallAdvice.class.getName());
            transformer.applyAdviceToMethod(data.and(not(returns(void.class))), LocalCacheCallAdvice.class.getName());
        }
    }
}
