package dev.richter.agent.otel;

import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The isolation at the JDK's {@code java.net.http.HttpClient} ({@code JdkHttpClientInstrumentation}); its helpers,
 * {@code dev.richter.agent.jdk.JdkHttpClientExits} and {@code MockedHttpResponse}, are injected next to the JDK's
 * client. Instrumentation name {@code richter-java-http-client}.
 *
 * <p>{@code java.net.http} begins at Java 11, so those three classes are the extension's only Java 11 class files
 * (agent/pom.xml, execution {@code java-11}). This module, which the agent's service loader instantiates on every
 * JVM, is Java 8 and names them as text only: on Java 8 to 10 it instruments nothing and none of them is loaded.
 */
public final class JdkHttpClientInstrumentationModule extends RichterInstrumentationModule {
    /** The helper classes, every class of {@code dev.richter.agent.jdk} but the server's (held so by a test). */
    static final List<String> HELPERS = Collections.unmodifiableList(Arrays.asList(
            "dev.richter.agent.jdk.JdkHttpClientExits",
            "dev.richter.agent.jdk.MockedHttpResponse",
            "dev.richter.agent.jdk.MockedHttpResponse$Later",
            "dev.richter.agent.jdk.MockedHttpResponse$Info",
            "dev.richter.agent.jdk.MockedHttpResponse$AllHeaders",
            "dev.richter.agent.jdk.MockedHttpResponse$OneBuffer"));
    /** The type instrumentation, a Java 11 class. */
    static final String INSTRUMENTATION = "dev.richter.agent.otel.JdkHttpClientInstrumentation";
    /** The first Java version with {@code java.net.http}. */
    static final int FIRST_JAVA = 11;

    public JdkHttpClientInstrumentationModule() {
        super("richter-java-http-client");
    }

    /** {@code JdkHttpClientInstrumentation} on Java 11 and later; none before (there is no such client to isolate). */
    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return instrumentations(System.getProperty("java.specification.version"));
    }

    /**
     * @param javaSpecificationVersion the JVM's {@code java.specification.version}: {@code 1.8} for Java 8, {@code 9},
     *                                 {@code 11}, {@code 17}, ... from Java 9 on
     */
    static List<TypeInstrumentation> instrumentations(String javaSpecificationVersion) {
        if (javaFeature(javaSpecificationVersion) < FIRST_JAVA) {
            return Collections.emptyList();
        }
        try {
            return Collections.singletonList((TypeInstrumentation) Class.forName(INSTRUMENTATION)
                    .getDeclaredConstructor().newInstance());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the extension jar lacks " + INSTRUMENTATION, e);
        }
    }

    /** The feature release of a {@code java.specification.version}: 8 for {@code 1.8}, 17 for {@code 17}. */
    static int javaFeature(String javaSpecificationVersion) {
        String v = javaSpecificationVersion.startsWith("1.") ? javaSpecificationVersion.substring(2)
                : javaSpecificationVersion;
        int dot = v.indexOf('.');
        return Integer.parseInt(dot < 0 ? v : v.substring(0, dot));
    }

    @Override
    public List<String> getAdditionalHelperClassNames() {
        return HELPERS;
    }
}
