package dev.richter.agent.otel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The JDK HttpClient module instruments on Java 11 and later only: its instrumentation and helpers are Java 11 class
 * files ({@code ExtensionClassFileVersionIT}), which a Java 8 to 10 JVM must never load.
 */
class JdkHttpClientInstrumentationModuleTest {

    @Test
    void noInstrumentationBeforeJava11() {
        for (String version : List.of("1.8", "9", "10")) {
            assertEquals(List.of(), JdkHttpClientInstrumentationModule.instrumentations(version), version);
        }
    }

    @Test
    void theJava11InstrumentationFromJava11On() {
        for (String version : List.of("11", "17", "21", "25")) {
            List<?> instrumentations = JdkHttpClientInstrumentationModule.instrumentations(version);

            assertEquals(1, instrumentations.size(), version);
            assertInstanceOf(JdkHttpClientInstrumentation.class, instrumentations.get(0));
        }
    }

    @Test
    void theFeatureReleaseOfEachVersionForm() {
        assertEquals(8, JdkHttpClientInstrumentationModule.javaFeature("1.8"));
        assertEquals(9, JdkHttpClientInstrumentationModule.javaFeature("9"));
        assertEquals(17, JdkHttpClientInstrumentationModule.javaFeature("17"));
        assertEquals(21, JdkHttpClientInstrumentationModule.javaFeature("21.0"));
    }
}
