package dev.richter.agent.bootstrap;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A guard for the helpers' unit tests: answers every HTTP call with one decision and keeps what it was asked ({@code
 * METHOD host:port /path}) and what it was told to record. {@link #install} puts it into {@link IsolationBridge};
 * {@code IsolationBridge.install(null)} after each test puts the pass-everything one back.
 */
public final class RecordingGuard implements IsolationGuard {
    public final List<String> asked = new ArrayList<>();
    public final List<ExitDecision> recorded = new ArrayList<>();
    private final ExitDecision answer;

    private RecordingGuard(ExitDecision answer) {
        this.answer = answer;
    }

    /** Installs a guard answering {@code answer} and returns it. */
    public static RecordingGuard install(ExitDecision answer) {
        RecordingGuard guard = new RecordingGuard(answer);
        IsolationBridge.install(guard);
        return guard;
    }

    @Override
    public ExitDecision decideHttp(String method, String host, int port, String path) {
        asked.add(method + " " + host + ":" + port + " " + path);
        return answer;
    }

    @Override
    public void record(ExitDecision decision) {
        recorded.add(decision);
    }

    @Override
    public Optional<String> inboundRefusal(String baggageHeader) {
        return Optional.empty();
    }

    @Override
    public MarkerScope markInbound(String baggageHeader) {
        return () -> { };
    }
}
