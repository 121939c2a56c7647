package dev.richter.decider;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;

/**
 * One condition of a run's abort policy; the set is closed ({@code type} in JSON) and
 * {@link FaultDecider} switches over it. Any condition that holds sets the run's abort flag.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.PROPERTY, property = "type")
@JsonSubTypes({
        @JsonSubTypes.Type(value = AbortCondition.AnyDamagedCoreModule.class, name = "anyDamagedCoreModule"),
        @JsonSubTypes.Type(value = AbortCondition.AnyDamagedModule.class, name = "anyDamagedModule"),
        @JsonSubTypes.Type(value = AbortCondition.ErrorRateOver.class, name = "errorRateOver")})
public sealed interface AbortCondition {
    /** Holds when any module named in the run's {@code coreModules} is DAMAGED. */
    record AnyDamagedCoreModule() implements AbortCondition {}

    /** Holds when any module at all (including the passive {@code load} pseudo-module) is DAMAGED. */
    record AnyDamagedModule() implements AbortCondition {}

    /**
     * Holds when the load driver's error rate was above {@code errorRate} in each of the last
     * {@code forSeconds} complete seconds (each second with at least one request).
     *
     * @param errorRate  0..1, e.g. 0.5
     * @param forSeconds consecutive seconds, e.g. 10
     */
    record ErrorRateOver(double errorRate, int forSeconds) implements AbortCondition {
        public ErrorRateOver {
            if (errorRate < 0 || errorRate > 1) throw new IllegalArgumentException("errorRate must be in 0..1");
            if (forSeconds < 1) throw new IllegalArgumentException("forSeconds must be >= 1");
        }
    }
}
