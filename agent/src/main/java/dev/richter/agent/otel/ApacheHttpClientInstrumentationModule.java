package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.matcher.AgentElementMatchers;
import java.util.Collections;
import java.util.List;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The isolation at Apache HttpClient 5's classic client ({@link ApacheHttpClientInstrumentation}); its helper {@code
 * dev.richter.agent.apache.ApacheHttpClientExits} is injected next to HttpClient. Instrumentation name {@code
 * richter-apache-httpclient-5}. Order 1 (inherited): the advice runs inside the agent's {@code apache-httpclient-5.0}
 * client span.
 */
public final class ApacheHttpClientInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.apache} (held so by a test). */
    static final List<String> HELPERS = Collections.singletonList("dev.richter.agent.apache.ApacheHttpClientExits");

    public ApacheHttpClientInstrumentationModule() {
        super("richter-apache-httpclient-5");
    }

    @Override
    public ElementMatcher.Junction<ClassLoader> classLoaderMatcher() {
        return AgentElementMatchers.hasClassesNamed(ApacheHttpClientInstrumentation.CLIENT);
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new ApacheHttpClientInstrumentation());
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
