package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Collections;
import java.util.List;

/**
 * Fail closed at reactor-netty's {@code HttpServer} ({@link ReactorNettyServerInstrumentation}), which Spring WebFlux
 * and Spring Cloud Gateway run on; its helper {@code dev.richter.agent.reactornetty.ReactorNettyGate} is injected
 * next to reactor-netty. Instrumentation name {@code richter-reactor-netty-server}.
 */
public final class ReactorNettyServerInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.reactornetty} (held so by a test). */
    static final List<String> HELPERS = Collections.singletonList("dev.richter.agent.reactornetty.ReactorNettyGate");

    public ReactorNettyServerInstrumentationModule() {
        super("richter-reactor-netty-server");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Collections.singletonList(ReactorNettyServerInstrumentation.HANDLE);
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
