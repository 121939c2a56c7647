package dev.richter.report;

import static dev.richter.report.Fixtures.healthyUpTo;
import static dev.richter.report.Fixtures.startOf;
import static dev.richter.report.Fixtures.step;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.Json;
import dev.richter.common.TableNames;
import dev.richter.common.model.WorkerResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

/**
 * Issue 42: a gateway answered 134 requests of a run from its circuit breaker's fallback, a 200 with an empty list,
 * and the report said "degradation NOT_OBSERVED" and counted them as successes. The breaker's own counter of calls it
 * did not permit ({@code resilience4j_circuitbreaker_not_permitted_calls_total}, read by the probe every round and
 * stored with the fault decider's rounds) shows them.
 */
class FallbacksTest {
    private static final TableNames TABLES = TableNames.fromEnv();

    /** The gateway's breaker on order: {@code total} calls not permitted by each round's time. */
    private static List<BreakerCount> readings(long... atAndTotal) {
        List<BreakerCount> out = new ArrayList<>();
        for (int i = 0; i < atAndTotal.length; i += 2) {
            out.add(new BreakerCount("gateway", atAndTotal[i], "order", atAndTotal[i + 1]));
        }
        return out;
    }

    @Test
    void aStepsFallbacksAreItsBreakersIncreaseOverTheStep() {
        List<WorkerResult> rs = healthyUpTo(3);
        StepFigures third = StepFigures.merge(10, List.of(rs.get(3)));
        long start = startOf("formal", 2);
        List<BreakerCount> counts = readings(start - 1_000, 40, start + 2_000, 40, start + 6_000, 140, start + 9_000, 174,
                start + 30_000, 500);
        assertEquals(Map.of("gateway/order", 134L), Fallbacks.of(third, counts), "174 - 40 over the step; not the later 500");
        assertEquals(Map.of("gateway/order", 30L), Fallbacks.of(third, readings(start - 1_000, 900, start + 5_000, 30)),
                "a counter that fell restarted with its JVM: it counts from 0");
        assertEquals(Map.of(), Fallbacks.of(third, readings(start - 1_000, 40, start + 9_000, 40)));
    }

    @Test
    void fallbacksLeaveTheSuccessRateAndMoveTheKnee() {
        List<WorkerResult> rs = healthyUpTo(3);
        long start = startOf("formal", 2);
        List<BreakerCount> counts = readings(start - 500, 0, start + 9_500, 134);
        Report r = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, rs, List.of(), Fixtures.CLEAN_DYNAMIC, List.of(),
                List.of(), ReportEvidence.NONE.withBreakerCounts(counts), null, 1);
        StepFigures third = r.formal().get(2);
        assertEquals(134, third.counters().fallbacks());
        assertEquals(666, third.counters().ok());
        assertEquals(83.25, third.successRatePct(), 1e-9);
        assertEquals(134, third.counters().errors());
        assertTrue(r.capacity().reached(), r.capacity().toString());
        assertEquals(Fixtures.FORMAL_QPS[1], r.capacity().maxSustainableQps(), 1e-9, "step 3 is no longer sustained");
        Report.Finding degradation = r.resilience().of(Degradation.DEFENCE);
        assertEquals(Report.Status.FAILS, degradation.status(), degradation.line());
        assertTrue(degradation.line().startsWith("silent: 134 answers were a circuit breaker's fallback by the breakers' own"
                + " counters of calls not permitted"), degradation.line());

        Report without = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, rs, List.of(), Fixtures.CLEAN_DYNAMIC, List.of(),
                List.of(), ReportEvidence.NONE, null, 1);
        assertEquals(100.0, without.formal().get(2).successRatePct(), 1e-9, "the answers alone look fine");
        assertEquals(Fixtures.FORMAL_QPS[2], without.capacity().maxSustainableQps(), 1e-9);
    }

    @Test
    void fallbacksAlreadyCountedAsErrorsAreNotCountedTwice() {
        List<WorkerResult> rs = healthyUpTo(2);
        rs.add(step("formal", 2, 80, 800, 790, Map.of("503", 10L), 0, 16));
        long start = startOf("formal", 2);
        StepFigures third = StepFigures.merge(10, List.of(rs.get(3)));
        StepFigures counted = Fallbacks.counted(List.of(third), readings(start - 500, 0, start + 9_500, 144)).get(0);
        assertEquals(134, counted.counters().fallbacks(), "144 fallbacks, 10 of them already the 503s");
        assertEquals(144, counted.counters().errors());
        assertEquals(0, Fallbacks.counted(List.of(third), readings(start - 500, 0, start + 9_500, 6)).get(0)
                .counters().fallbacks(), "6 fallbacks that failed: the 503s already count them");
    }

    @Test
    void theCountersAreReadFromTheDecidersStoredRounds() {
        FakeDynamo ddb = new FakeDynamo();
        String evidence = Json.write(Map.of("rule", "healthy", "reports", List.of(
                Map.of("module", "gateway", "metrics", Map.of("breakerNotPermitted:order", 12.0, "breakerOpen:order", 1.0)),
                Map.of("module", "order", "metrics", Map.of("breakerNotPermitted:order", 99.0)))));
        ddb.put(TABLES.verdicts(), Map.of("runId", AttributeValue.fromS("run-1"),
                "sk", AttributeValue.fromS("verdict#%013d#gateway".formatted(1_000L)), "module", AttributeValue.fromS("gateway"),
                "atMs", AttributeValue.fromN("1000"), "evidence", AttributeValue.fromS(evidence)));
        List<BreakerCount> read = new ReportRepository(ddb.client, TABLES.reports(), TABLES.verdicts()).breakerCounts("run-1");
        assertEquals(List.of(new BreakerCount("gateway", 1_000, "order", 12.0)), read,
                "the module's own report only: a passive report of another module is that module's");
    }
}
