package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Fail closed at any jakarta Servlet container ({@link JakartaServletInstrumentation}); its helper {@code
 * dev.richter.agent.servlet.ServletGate} is injected next to the container's {@code jakarta.servlet} classes.
 * Instrumentation name {@code richter-jakarta-servlet}.
 */
public final class JakartaServletInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.servlet} (held so by a test). */
    static final List<String> HELPERS = Collections.singletonList("dev.richter.agent.servlet.ServletGate");

    public JakartaServletInstrumentationModule() {
        super("richter-jakarta-servlet");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.unmodifiableList(Arrays.asList(JakartaServletInstrumentation.filterChains(),
                JakartaServletInstrumentation.servlets()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
