package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * Fail closed at any {@code javax.servlet} container (Servlet 3.0 to 4.0: Tomcat 9, as Spring Boot 2 runs it; {@link
 * ServletInstrumentation}); its helpers {@code dev.richter.agent.servlet.JavaxServletGate} and {@code ServletGates}
 * are injected next to the container's {@code javax.servlet} classes. Instrumentation name {@code
 * richter-javax-servlet}.
 */
public final class JavaxServletInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes: the javax gate and the part both gates share. */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.servlet.JavaxServletGate", "dev.richter.agent.servlet.ServletGates"));

    public JavaxServletInstrumentationModule() {
        super("richter-javax-servlet");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.unmodifiableList(Arrays.asList(ServletInstrumentation.javaxFilterChains(),
                ServletInstrumentation.javaxServlets()));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
