package dev.richter.agent.bootstrap;

import java.util.Optional;

/**
 * A guard for the helpers' unit tests: every HTTP call passes, nothing is recorded or refused at the door, and the
 * current work is marked or not as constructed. A test overrides the one rule its helper asks (e.g. {@code
 * decideTopic}); everything else is the interface's default.
 */
public class StubGuard implements IsolationGuard {
    private final boolean marked;

    /** @param marked what {@link #marked()} answers */
    public StubGuard(boolean marked) {
        this.marked = marked;
    }

    @Override
    public ExitDecision decideHttp(String method, String host, int port, String path) {
        return ExitDecision.PASS;
    }

    @Override
    public void record(ExitDecision decision) {}

    @Override
    public Optional<String> inboundRefusal(String baggageHeader) {
        return Optional.empty();
    }

    @Override
    public MarkerScope markInbound(String baggageHeader) {
        return () -> { };
    }

    @Override
    public boolean marked() {
        return marked;
    }
}
