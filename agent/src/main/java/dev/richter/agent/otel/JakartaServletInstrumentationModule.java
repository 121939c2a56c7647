package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Fail closed at any jakarta Servlet container ({@link ServletInstrumentation}); its helpers {@code
 * dev.richter.agent.servlet.ServletGate} and {@code ServletGates} are injected next to the container's {@code
 * jakarta.servlet} classes. Instrumentation name {@code richter-jakarta-servlet}.
 */
public final class JakartaServletInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes: the jakarta gate and the part both gates share. */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.servlet.ServletGate", "dev.richter.agent.servlet.ServletGates"));

    public JakartaServletInstrumentationModule() {
        super("richter-jakarta-servlet");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.unmodifiableList(Arrays.asList(ServletInstrumentation.jakartaFilterChains(),
                ServletInstrumentation.jakartaServlets()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
