package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Collections;
import java.util.List;

/**
 * Fail closed at the JDK's {@code com.sun.net.httpserver.HttpServer} ({@link JdkHttpServerInstrumentation}); its
 * helper {@code dev.richter.agent.jdk.InboundGate} is injected next to the JDK's server. Instrumentation name {@code
 * richter-java-http-server}.
 */
public final class JdkHttpServerInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes (held equal to the server's classes of {@code dev.richter.agent.jdk} by a test). */
    static final List<String> HELPERS = Collections.singletonList("dev.richter.agent.jdk.InboundGate");

    public JdkHttpServerInstrumentationModule() {
        super("richter-java-http-server");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(new JdkHttpServerInstrumentation());
    }

    /**
     * Installed before the agent's {@code java-http-server}, so that this exit advice runs after the agent's: the
     * agent's filters (which open the server span) are in the context's list when the gate is appended after them.
     */
    @Override
    public int order() {
        return -1;
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
