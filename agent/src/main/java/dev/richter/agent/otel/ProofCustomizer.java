package dev.richter.agent.otel;

import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizer;
import io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider;

/**
 * Adds the {@link ProofSpanProcessor} to the agent's tracer provider. Found by the agent's service loader ({@code
 * META-INF/services/io.opentelemetry.sdk.autoconfigure.spi.AutoConfigurationCustomizerProvider}), which runs it while
 * the agent sets up its SDK, before any instrumented class runs.
 */
public final class ProofCustomizer implements AutoConfigurationCustomizerProvider {
    @Override
    public void customize(AutoConfigurationCustomizer customizer) {
        customizer.addTracerProviderCustomizer((builder, config) -> builder.addSpanProcessor(new ProofSpanProcessor()));
    }
}
