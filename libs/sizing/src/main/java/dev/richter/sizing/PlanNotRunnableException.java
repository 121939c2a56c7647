package dev.richter.sizing;

/** The plan cannot run as it stands (e.g. a scenario targets a service the team has not registered). */
public final class PlanNotRunnableException extends RuntimeException {
    public PlanNotRunnableException(String message) {
        super(message);
    }
}
