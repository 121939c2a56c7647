package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.List;

/**
 * The isolation at the JDK's {@code java.net.http.HttpClient} ({@link JdkHttpClientInstrumentation}); its helpers,
 * {@code dev.richter.agent.jdk.JdkHttpClientExits} and {@code MockedHttpResponse}, are injected next to the JDK's
 * client. Instrumentation name {@code richter-java-http-client}.
 */
public final class JdkHttpClientInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.jdk} but the server's (held so by a test). */
    static final List<String> HELPERS = List.of(
            "dev.richter.agent.jdk.JdkHttpClientExits",
            "dev.richter.agent.jdk.MockedHttpResponse",
            "dev.richter.agent.jdk.MockedHttpResponse$Later",
            "dev.richter.agent.jdk.MockedHttpResponse$Info",
            "dev.richter.agent.jdk.MockedHttpResponse$AllHeaders",
            "dev.richter.agent.jdk.MockedHttpResponse$OneBuffer");

    public JdkHttpClientInstrumentationModule() {
        super("richter-java-http-client");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return List.of(new JdkHttpClientInstrumentation());
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
