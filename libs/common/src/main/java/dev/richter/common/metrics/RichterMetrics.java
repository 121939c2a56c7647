package dev.richter.common.metrics;

import com.fasterxml.jackson.core.JsonProcessingException;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.logging.log4j.LogManager;
import software.amazon.cloudwatchlogs.emf.environment.Environment;
import software.amazon.cloudwatchlogs.emf.environment.EnvironmentProvider;
import software.amazon.cloudwatchlogs.emf.model.MetricsContext;
import software.amazon.cloudwatchlogs.emf.sinks.ISink;
import software.amazon.lambda.powertools.metrics.Metrics;
import software.amazon.lambda.powertools.metrics.internal.EmfMetricsLogger;
import software.amazon.lambda.powertools.metrics.model.DimensionSet;
import software.amazon.lambda.powertools.metrics.model.MetricUnit;
import software.amazon.lambda.powertools.metrics.provider.EmfMetricsProvider;

/**
 * Richter's own metrics, as CloudWatch Embedded Metric Format (EMF) lines written through Powertools' functional API
 * ({@code software.amazon.lambda:powertools-metrics} 2.5.0, no AspectJ weaving).
 *
 * <p>Every metric is in namespace {@value #NAMESPACE} with exactly two dimensions: {@value #FUNCTION} (the function,
 * e.g. {@code load-driver}) and {@value #STAGE} (the deployment stage, template parameter {@code StageName}, read from
 * {@code RICHTER_STAGE}; {@code local} when unset). Both sets are bounded, so the number of billed custom metrics is
 * (metric names × functions × stages). Team, run, the run's stage and step are EMF properties
 * ({@link Emission#property}: top-level fields of the EMF line, searchable in Logs Insights), never dimensions: each
 * distinct dimension combination is a billed custom metric, and run ids are unbounded. Metric names and units:
 * {@code docs/DESIGN.md} section 11, "Richter's own metrics, logs and traces".
 *
 * <p>Where the lines go: in Lambda ({@code AWS_LAMBDA_FUNCTION_NAME} set) Powertools' {@link EmfMetricsProvider}
 * prints them to stdout, where CloudWatch Logs extracts the metrics. Elsewhere (the local stack, tests) each line is
 * given to the sink installed with {@link #captureOutsideLambda(Consumer)}, by default {@code System.out}; EMF's own
 * environment discovery (an EC2 metadata call, then a CloudWatch agent socket) is never tried.
 *
 * <p>One {@link Emission} is one EMF line: add metrics and properties, then {@link Emission#flush()}. Emissions are
 * independent Powertools instances, so concurrent invocations in one JVM (the local Lambda host) never mix metrics.
 */
public final class RichterMetrics {
    /** The CloudWatch namespace of every Richter metric. */
    public static final String NAMESPACE = "Richter";
    /** Dimension: the function that emitted the metric ({@code load-driver}, {@code probe}, ...). */
    public static final String FUNCTION = "Function";
    /** Dimension: the deployment stage ({@code StageName}). */
    public static final String STAGE = "Stage";
    /** Environment variable holding the deployment stage. */
    public static final String STAGE_ENV = "RICHTER_STAGE";

    private static volatile Consumer<String> outsideLambda = System.out::println;

    private final String function;
    private final String stage;
    private final boolean inLambda;
    private final boolean enabled;

    /**
     * @param function the emitting function's name (the {@value #FUNCTION} dimension), e.g. {@code probe}
     * @param stage    the deployment stage (the {@value #STAGE} dimension)
     * @param inLambda true to print through Powertools' Lambda environment (stdout), false for the installed sink
     */
    RichterMetrics(String function, String stage, boolean inLambda) {
        this(function, stage, inLambda, true);
    }

    private RichterMetrics(String function, String stage, boolean inLambda, boolean enabled) {
        this.function = Objects.requireNonNull(function, "function");
        this.stage = Objects.requireNonNull(stage, "stage");
        this.inLambda = inLambda;
        this.enabled = enabled;
    }

    /**
     * Metrics that are never written (benchmarks and tests of logic that is not about metrics): every emission's
     * {@link Emission#flush()} does nothing.
     */
    public static RichterMetrics disabled() {
        return new RichterMetrics("disabled", "disabled", false, false);
    }

    /**
     * Metrics of {@code function} in the stage named by {@code RICHTER_STAGE} ({@code local} when unset).
     *
     * @param function the function's name, e.g. {@code load-driver}
     */
    public static RichterMetrics forFunction(String function) {
        String stage = System.getenv(STAGE_ENV);
        return new RichterMetrics(function, stage == null || stage.isBlank() ? "local" : stage,
                System.getenv("AWS_LAMBDA_FUNCTION_NAME") != null);
    }

    /**
     * Sends every EMF line emitted outside Lambda to {@code sink} (one JSON object per call, no newline): the local
     * stack appends them to {@code build/local/metrics.jsonl}, tests keep them. JVM-wide; returns the previous sink.
     */
    public static Consumer<String> captureOutsideLambda(Consumer<String> sink) {
        Consumer<String> previous = outsideLambda;
        outsideLambda = Objects.requireNonNull(sink, "sink");
        return previous;
    }

    /** The {@value #FUNCTION} dimension of this emitter. */
    public String function() {
        return function;
    }

    /** A new, empty EMF line of this function and stage. */
    public Emission emission() {
        Metrics metrics = inLambda ? new EmfMetricsProvider().getMetricsInstance()
                : new EmfMetricsLogger(new SinkEnvironmentProvider(), new MetricsContext());
        metrics.setNamespace(NAMESPACE);
        metrics.setDefaultDimensions(DimensionSet.of(FUNCTION, function, STAGE, stage));
        return new Emission(metrics, enabled);
    }

    /**
     * One EMF line under construction. Not thread-safe; flush it once.
     */
    public static final class Emission {
        private final Metrics metrics;
        private final boolean enabled;
        private boolean empty = true;

        private Emission(Metrics metrics, boolean enabled) {
            this.metrics = metrics;
            this.enabled = enabled;
        }

        /**
         * Sets the time of the line's data points (default: when it is flushed), e.g. the second a load-driver window
         * describes. CloudWatch accepts 14 days back to 2 hours ahead.
         */
        public Emission timestamp(Instant at) {
            metrics.setTimestamp(at);
            return this;
        }

        /** Adds a metric with unit {@code Count}. */
        public Emission count(String name, double value) {
            return metric(name, value, MetricUnit.COUNT);
        }

        /** Adds a metric with unit {@code Milliseconds}. */
        public Emission milliseconds(String name, double value) {
            return metric(name, value, MetricUnit.MILLISECONDS);
        }

        /** Adds a metric with unit {@code Percent} (100 = 100 %; may be negative for a signed error). */
        public Emission percent(String name, double value) {
            return metric(name, value, MetricUnit.PERCENT);
        }

        private Emission metric(String name, double value, MetricUnit unit) {
            metrics.addMetric(name, value, unit);
            empty = false;
            return this;
        }

        /** Adds an EMF property (a top-level field of the line, searchable in Logs Insights, never a dimension), e.g. {@code runId}. */
        public Emission property(String key, Object value) {
            if (value != null) {
                metrics.addMetadata(key, value);
            }
            return this;
        }

        /** Adds every entry of {@code properties} as metadata. */
        public Emission properties(Map<String, ?> properties) {
            properties.forEach(this::property);
            return this;
        }

        /**
         * Writes the line; an emission with no metric, or of {@link #disabled()} metrics, writes nothing. A failure to write is never thrown to the caller:
         * metrics must not fail a run.
         */
        public void flush() {
            if (empty || !enabled) {
                return;
            }
            try {
                metrics.flush();
            } catch (RuntimeException e) {
                LogManager.getLogger(RichterMetrics.class)
                        .warn("metrics not written: {}", e.toString());
            }
        }
    }

    /** EMF environment of the installed sink: no discovery, no agent, one serialized line per call. */
    private static final class SinkEnvironmentProvider extends EnvironmentProvider {
        private static final Environment SINK = new Environment() {
            @Override
            public boolean probe() {
                return true;
            }

            @Override
            public String getName() {
                return "richter-local";
            }

            @Override
            public String getType() {
                return "Local";
            }

            @Override
            public String getLogGroupName() {
                return "richter-local";
            }

            @Override
            public void configureContext(MetricsContext context) {
            }

            @Override
            public ISink getSink() {
                return new ISink() {
                    @Override
                    public void accept(MetricsContext context) {
                        try {
                            context.serialize().forEach(line -> outsideLambda.accept(line));
                        } catch (JsonProcessingException e) {
                            throw new IllegalStateException("EMF line not serializable: " + e.getOriginalMessage(), e);
                        }
                    }

                    @Override
                    public CompletableFuture<Void> shutdown() {
                        return CompletableFuture.completedFuture(null);
                    }
                };
            }
        };

        @Override
        public CompletableFuture<Environment> resolveEnvironment() {
            return CompletableFuture.completedFuture(SINK);
        }
    }
}
