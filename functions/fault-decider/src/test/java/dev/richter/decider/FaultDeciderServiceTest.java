package dev.richter.decider;

import dev.richter.common.model.LiveLoad;

import static dev.richter.decider.Fixtures.*;
import static org.junit.jupiter.api.Assertions.*;

import dev.richter.common.Json;
import dev.richter.common.model.HealthReport;
import dev.richter.common.model.Verdict;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class FaultDeciderServiceTest {
    final FakeRules rules = new FakeRules();
    final FakeVerdicts verdicts = new FakeVerdicts();
    final FakeMetrics metrics = new FakeMetrics();
    final FakeAbort abort = new FakeAbort();
    final FakeEvents events = new FakeEvents();
    final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
    final FaultDeciderService service = new FaultDeciderService(rules, verdicts, metrics, abort, events, clock::get);

    DecideResult decide(List<String> core, HealthReport... reports) {
        var r = service.decide(new DecideRequest("run-1", "team-a", "formal", 0, clock.get() + 60_000, core,
                new DecideRequest.Round("run-1", clock.get(), List.of(reports))));
        clock.addAndGet(2000);
        return r;
    }

    @Test
    void aChangedRuleAppliesToTheNextDecision() {
        for (int i = 0; i < 2; i++) {
            assertEquals(Verdict.State.HEALTHY, decide(List.of(), http("order", false), tcp("order", true)).verdicts().getFirst().state());
        }
        // The team lowers the SUSPECT count to 3; no redeploy, the next round uses it.
        rules.rules = DecisionRules.fromJson("{\"suspectAfterConsecutiveFailures\": 3}");
        var r = decide(List.of(), http("order", false), tcp("order", true));
        assertEquals(Verdict.State.SUSPECT, r.verdicts().getFirst().state());
        assertEquals(3, rules.loads);
    }

    @Test
    void verdictChangeIsStoredEmittedOnceAndAbortsTheRun() {
        var r = decide(List.of("order"), http("order", false), tcp("order", false));
        assertEquals(Verdict.State.DAMAGED, r.verdicts().getFirst().state());
        assertTrue(r.abortRequested());
        assertFalse(r.continueRun());
        assertTrue(abort.reasons.get("run-1").contains("DAMAGED core module order"));
        assertEquals(1, events.published.size());
        var e = events.published.getFirst();
        assertEquals("HEALTHY", e.get("from"));
        assertEquals("DAMAGED", e.get("to"));
        assertEquals("order", e.get("module"));
        assertEquals(Verdict.State.DAMAGED, verdicts.states.get("run-1").get("order").verdict());
        decide(List.of("order"), http("order", false), tcp("order", false));
        assertEquals(1, events.published.size(), "no event without a change");
        assertEquals(2, verdicts.log.size(), "every decision is stored with its evidence");
    }

    @Test
    void aBusThatRefusesCostsTheEventNeverTheAbortAndTheRoundStillBeats() {
        VerdictEvents refusing = detail -> {
            throw new IllegalStateException("PutEvents failed: InternalFailure");
        };
        var service = new FaultDeciderService(rules, verdicts, metrics, abort, refusing, clock::get);
        long decidedAt = clock.get();
        var r = service.decide(new DecideRequest("run-1", "team-a", "formal", 0, clock.get() + 60_000, List.of("order"),
                new DecideRequest.Round("run-1", clock.get(), List.of(http("order", false), tcp("order", false)))));
        assertEquals(Verdict.State.DAMAGED, r.verdicts().getFirst().state());
        assertTrue(r.abortRequested());
        assertTrue(abort.reasons.get("run-1").contains("DAMAGED core module order"), abort.reasons.toString());
        assertEquals(decidedAt, abort.beats.get("run-1"), "the decision was made: the monitor's heartbeat is recorded");
    }

    @Test
    void everyRoundRecordsTheMonitorsHeartbeat() {
        long first = clock.get();
        decide(List.of(), http("order", true), tcp("order", true));
        assertEquals(first, abort.beats.get("run-1"));
        decide(List.of(), http("order", true), tcp("order", true));
        assertEquals(first + 2000, abort.beats.get("run-1"));
    }

    @Test
    void everyRoundWritesOneEmfLineWithDecisionsVerdictChangesByStateAndTimeFromEvidence() {
        var metered = new FaultDeciderService(rules, verdicts, metrics, abort, events, clock::get,
                dev.richter.common.metrics.RichterMetrics.forFunction("fault-decider"));
        try (var capture = new dev.richter.common.metrics.MetricsCapture()) {
            long observedAtMs = clock.get() - 850;   // the probe round started 850 ms before this decision
            metered.decide(new DecideRequest("run-1", "team-a", "formal", 2, clock.get() + 60_000, List.of("order"),
                    new DecideRequest.Round("run-1", observedAtMs, List.of(http("order", false), tcp("order", false)))));
            var lines = capture.lines();
            assertEquals(1, lines.size());
            var line = lines.getFirst();
            var directive = line.path("_aws").path("CloudWatchMetrics").get(0);
            assertEquals("Richter", directive.path("Namespace").asText());
            assertEquals("[[\"Function\",\"Stage\"]]", directive.path("Dimensions").toString());
            assertEquals("fault-decider", line.path("Function").asText());
            for (String name : List.of("Decisions", "AbortsSet", "VerdictChangesHealthy", "VerdictChangesSuspect",
                    "VerdictChangesDamaged")) {
                assertEquals("Count", dev.richter.common.metrics.MetricsCapture.unit(directive, name));
            }
            assertEquals("Milliseconds", dev.richter.common.metrics.MetricsCapture.unit(directive, "EvidenceToVerdict"));
            assertEquals(1, line.path("Decisions").asLong());
            assertEquals(1, line.path("VerdictChangesDamaged").asLong(), "order: HEALTHY -> DAMAGED");
            assertEquals(0, line.path("VerdictChangesSuspect").asLong());
            assertEquals(0, line.path("VerdictChangesHealthy").asLong());
            assertEquals(1, line.path("AbortsSet").asLong(), "a DAMAGED core module aborts the run");
            assertEquals(850, line.path("EvidenceToVerdict").asLong());
            assertEquals("run-1", line.path("runId").asText());
            assertEquals(2, line.path("stepIndex").asInt());
        }
    }

    @Test
    void theRunsOwnAbortPolicyReplacesTheTeams() {
        var never = new AbortPolicy(List.of());
        var r = service.decide(new DecideRequest("run-1", "team-a", "formal", 0, clock.get() + 60_000, List.of("order"),
                new DecideRequest.Round("run-1", clock.get(), List.of(http("order", false), tcp("order", false))), never));
        assertEquals(Verdict.State.DAMAGED, r.verdicts().getFirst().state());
        assertFalse(r.abortRequested());
        assertTrue(r.continueRun());
        var parsed = Json.read("{\"runId\":\"r\",\"abortPolicy\":{\"conditions\":[{\"type\":\"errorRateOver\",\"errorRate\":0.2,\"forSeconds\":5}]}}",
                DecideRequest.class);
        assertEquals(new AbortCondition.ErrorRateOver(0.2, 5), parsed.runAbortPolicy().orElseThrow().conditions().getFirst());
    }

    @Test
    void continueIsFalseOnceTheStepEnds() {
        var r = service.decide(new DecideRequest("run-1", "team-a", "formal", 0, clock.get(), List.of(),
                new DecideRequest.Round("run-1", clock.get(), List.of(http("order", true)))));
        assertFalse(r.continueRun());
        assertFalse(r.abortRequested());
    }

    @Test
    void anAbortSetElsewhereStopsTheLoop() {
        abort.requestAbort("run-1", "user alice");
        var r = decide(List.of(), http("order", true));
        assertFalse(r.continueRun());
        assertTrue(r.abortRequested());
    }

    @Test
    void passiveWindowsAreReadForTheLastCompleteSeconds() {
        long sec = clock.get() / 1000;
        metrics.windows.addAll(windows(sec - 12, sec - 1, 20, 20, 30));
        var r = decide(List.of(), http("order", true));
        var load = r.verdicts().stream().filter(v -> v.module().equals(FaultDecider.PASSIVE_MODULE)).findFirst().orElseThrow();
        assertEquals(Verdict.State.DAMAGED, load.state());
        assertTrue(r.abortRequested(), "error rate 100 % for 10 s");
    }

    /**
     * Issue 24 finding 16: each round writes the step's live load with its heartbeat, from the windows it read: the
     * last 5 complete seconds, merged over workers (two workers of 10 requests a second, 1 error each, 30 and 80 ms).
     */
    @Test
    void everyRoundRecordsTheStepsLiveLoadFromTheWindowsItRead() {
        long sec = clock.get() / 1000;
        metrics.windows.addAll(windows(sec - 12, sec - 1, 10, 1, 30));
        for (LoadWindow w : windows(sec - 12, sec - 1, 10, 1, 80)) {
            metrics.windows.add(new LoadWindow(w.epochSecond(), 1, w.count(), w.errors(), w.histBase64()));
        }
        long decidedAt = clock.get();
        decide(List.of(), http("order", true), tcp("order", true));
        LiveLoad live = abort.live.get("run-1");
        assertEquals("formal", live.stage());
        assertEquals(0, live.stepIndex());
        assertEquals(decidedAt, live.atMs());
        assertEquals(5, live.seconds());
        assertEquals(100, live.completed(), "2 workers x 10 requests x 5 s");
        assertEquals(10, live.errors());
        assertEquals(20.0, live.qps(), 1e-9);
        assertEquals(10.0, live.errorRatePct(), 1e-9);
        assertEquals(80.0, live.p99Ms(), 0.1, "the merged histogram's p99: the slower worker's 80 ms");
    }

    @Test
    void rulesJsonMergesOverDefaultsAndRejectsBadValues() {
        DecisionRules r = DecisionRules.fromJson("{\"thresholds\":{\"heapUsedMaxRatio\":0.8},\"probeWeights\":{\"http\":0.9}}");
        assertEquals(0.8, r.thresholds().heapUsedMaxRatio());
        assertEquals(0.999, r.thresholds().minSuccessRate());
        assertEquals(0.9, r.weight("http"));
        assertEquals(0.4, r.weight("tcp"));
        assertEquals(DecisionRules.defaults(), DecisionRules.fromJson(DecisionRules.defaults().toJson()));
        assertThrows(IllegalArgumentException.class, () -> DecisionRules.fromJson("{\"damagedVoteFraction\": 2}"));
        assertThrows(IllegalArgumentException.class, () -> DecisionRules.fromJson("{\"abortPolicy\":{\"conditions\":[{\"type\":\"nope\"}]}}"));
    }

    @Test
    void handlerReadsTheSampleEvent() throws Exception {
        Path event = Path.of("../../events/fault-decider/decide.json");
        var out = new ByteArrayOutputStream();
        new FaultDeciderHandler(service).handleRequest(new ByteArrayInputStream(Files.readAllBytes(event)), out, null);
        String json = out.toString(StandardCharsets.UTF_8);
        var node = Json.MAPPER.readTree(json);
        assertTrue(node.has("continue"), json);
        assertTrue(node.has("abortRequested"));
        assertTrue(node.get("verdicts").isArray());
        assertEquals("inventory", node.get("verdicts").get(0).get("module").asText());
    }
}
