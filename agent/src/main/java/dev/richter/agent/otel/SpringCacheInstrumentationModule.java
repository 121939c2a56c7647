package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.isSynthetic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.namedOneOf;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;

import io.opentelemetry.javaagent.extension.ignore.IgnoredTypesBuilder;
import io.opentelemetry.javaagent.extension.ignore.IgnoredTypesConfigurer;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.description.method.MethodDescription;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at Spring's {@code org.springframework.cache.concurrent.ConcurrentMapCache} (the store of {@code
 * ConcurrentMapCacheManager}, {@code @Cacheable}'s default without a cache library; tested with spring-context
 * 6.2.12): a marked call runs on a shadow {@code ConcurrentMapCache} ({@code dev.richter.agent.localcache}, the rule of
 * {@link CaffeineInstrumentationModule}'s helpers). Where: its data methods ({@link #DATA_METHODS}: {@code lookup},
 * which {@code get(key)} and {@code get(key, type)} call, {@code get(key, valueLoader)}, {@code retrieve}, {@code put},
 * {@code putIfAbsent}, {@code evict}, {@code evictIfPresent}, {@code clear}, {@code invalidate}, {@code
 * getNativeCache}). The agent ignores {@code org.springframework.cache.*}; {@link AllowConcurrentMapCache} lets this
 * class in. Instrumentation name {@code richter-spring-cache}.
 */
public final class SpringCacheInstrumentationModule extends RichterInstrumentationModule {
    static final List<String> DATA_METHODS = Collections.unmodifiableList(Arrays.asList("lookup", "get", "retrieve",
            "put", "putIfAbsent", "evict", "evictIfPresent", "clear", "invalidate", "getNativeCache"));
    static final String CONCURRENT_MAP_CACHE = "org.springframework.cache.concurrent.ConcurrentMapCache";

    public SpringCacheInstrumentationModule() {
        super("richter-spring-cache");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.<TypeInstrumentation>singletonList(new ConcurrentMapCacheInstrumentation());
    }

    /** The helpers of {@link CaffeineInstrumentationModule}: the one rule of both. */
    @Override
    public List<String> getAdditionalHelperClassNames() {
        return CaffeineInstrumentationModule.HELPERS;
    }

    /** Lets the agent instrument {@code ConcurrentMapCache}, which its ignores of {@code org.springframework.cache.} leave out. */
    public static final class AllowConcurrentMapCache implements IgnoredTypesConfigurer {
        @Override
        public void configure(IgnoredTypesBuilder builder, ConfigProperties config) {
            builder.allowClass(CONCURRENT_MAP_CACHE);
        }
    }

    /** {@code ConcurrentMapCache}'s data methods. */
    static final class ConcurrentMapCacheInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<ClassLoader> classLoaderOptimization() {
            return AgentElementMatchers.hasClassesNamed(CONCURRENT_MAP_CACHE);
        }

        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named(CONCURRENT_MAP_CACHE);
        }

        @Override
        public void transform(TypeTransformer transformer) {
            ElementMatcher.Junction<MethodDescription> data = isMethod().and(not(isStatic())).and(not(isAbstract()))
                    .and(not(isSynthetic())).and(namedOneOf(DATA_METHODS.toArray(new String[0])));
            transformer.applyAdviceToMethod(data.and(returns(void.class)), LocalCacheVoidCallAdvice.class.getName());
            transformer.applyAdviceToMethod(data.and(not(returns(void.class))), LocalCacheCallAdvice.class.getName());
        }
    }
}
