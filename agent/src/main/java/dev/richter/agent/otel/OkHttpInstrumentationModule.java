package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at OkHttp 4.x and 5.x ({@link OkHttpInstrumentation}); its helper {@code
 * dev.richter.agent.okhttp.OkHttpExits} is injected next to OkHttp. Instrumentation name {@code richter-okhttp}.
 */
public final class OkHttpInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.okhttp} (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.okhttp.OkHttpExits",
            "dev.richter.agent.okhttp.OkHttpExits$SkippedNetwork"));

    public OkHttpInstrumentationModule() {
        super("richter-okhttp");
    }

    /** OkHttp 4.x or later (Kotlin: {@code ResponseBody.Companion}); 3.x's Java API differs and is not covered. */
    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
        return AgentElementMatchers.hasClassesNamed(OkHttpInstrumentation.INTERCEPTOR,
                "okhttp3.internal.connection.RealCall", "okhttp3.ResponseBody$Companion");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new OkHttpInstrumentation());
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
