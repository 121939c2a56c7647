package dev.richter.decider;

import dev.richter.common.model.LiveLoad;

import dev.richter.common.model.HealthReport;
import dev.richter.common.model.HistogramCodec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Report builders and in-memory fakes of the decider's collaborators. */
final class Fixtures {
    private Fixtures() {}

    static HealthReport http(String module, boolean ok) {
        return new HealthReport(module, "http", ok, ok ? "UP" : "TIMEOUT", List.of(), 5, ok ? "" : "timeout", Map.of(), 0);
    }

    static HealthReport tcp(String module, boolean ok) {
        return new HealthReport(module, "tcp", ok, ok ? "CONNECTED" : "REFUSED", List.of(), 1, "", Map.of(), 0);
    }

    static HealthReport prom(String module, double heap, double conn) {
        return new HealthReport(module, "prometheus", true, "SCRAPED", List.of(), 3, "",
                Map.of("heapUsedRatio", heap, "connectionsInUseRatio", conn), 0);
    }

    /** One window per second in [fromSec, toSec] with the given requests, errors and a flat latency. */
    static List<LoadWindow> windows(long fromSec, long toSec, long count, long errors, long latencyMs) {
        List<LoadWindow> out = new ArrayList<>();
        for (long s = fromSec; s <= toSec; s++) {
            var h = HistogramCodec.newLatencyHistogramUs();
            if (count > 0) h.recordValueWithCount(latencyMs * 1000, count);
            out.add(new LoadWindow(s, 0, count, errors, HistogramCodec.encode(h)));
        }
        return out;
    }

    static final class FakeRules implements DecisionRulesRepository {
        volatile DecisionRules rules = DecisionRules.defaults();
        int loads;

        @Override
        public DecisionRules load(String teamId) {
            loads++;
            return rules;
        }
    }

    static final class FakeVerdicts implements VerdictRepository {
        final Map<String, Map<String, ModuleState>> states = new HashMap<>();
        final List<ModuleDecision> log = new ArrayList<>();

        @Override
        public Map<String, ModuleState> loadStates(String runId) {
            return Map.copyOf(states.getOrDefault(runId, Map.of()));
        }

        @Override
        public void save(String runId, List<ModuleDecision> decisions) {
            var m = states.computeIfAbsent(runId, k -> new HashMap<>());
            for (ModuleDecision d : decisions) {
                // Round-trip through JSON as the DynamoDB repository does.
                m.put(d.verdict().module(), dev.richter.common.Json.read(dev.richter.common.Json.write(d.next()), ModuleState.class));
                log.add(d);
            }
        }
    }

    static final class FakeMetrics implements WindowReader {
        final List<LoadWindow> windows = new ArrayList<>();

        @Override
        public List<LoadWindow> windows(String runId, String stage, int stepIndex, long from, long to) {
            return windows.stream().filter(w -> w.epochSecond() >= from && w.epochSecond() <= to).toList();
        }
    }

    static final class FakeAbort implements AbortFlag {
        final Map<String, String> reasons = new HashMap<>();
        final Map<String, Long> beats = new HashMap<>();
        final Map<String, LiveLoad> live = new HashMap<>();

        @Override
        public void beat(String runId, long atMs) {
            beats.put(runId, atMs);
        }

        @Override
        public void beat(String runId, long atMs, LiveLoad load) {
            beats.put(runId, atMs);
            live.put(runId, load);
        }

        @Override
        public boolean isAbortRequested(String runId) {
            return reasons.containsKey(runId);
        }

        @Override
        public void requestAbort(String runId, String reason) {
            reasons.putIfAbsent(runId, reason);
        }
    }

    static final class FakeEvents implements VerdictEvents {
        final List<Map<String, Object>> published = new ArrayList<>();

        @Override
        public void verdictChanged(Map<String, Object> detail) {
            published.add(detail);
        }
    }
}
