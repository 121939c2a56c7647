package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a person reads during and after the demo: steps from 1, one source per figure, the report's headline. */
class RunWatcherTest {
    private static JsonNode json(String s) throws Exception {
        return Json.MAPPER.readTree(s.replace('\'', '"'));
    }

    @Test
    void aDoneLineNumbersFormalStepsFromOneAndPrintsTheMergedFigures() throws Exception {
        JsonNode step = json("{'stage':'formal','stepIndex':0,'targetQps':20,'achievedQps':20.0,'sent':300,'errors':0,"
                + "'p50Ms':33.9,'p99Ms':68.0,'workers':'1/1'}");
        String line = RunWatcher.doneLine(step, "step 1", 34);
        assertTrue(line.contains("done step 1 "), line);
        assertTrue(line.contains("achieved   20.00 QPS"), line);
        assertTrue(RunWatcher.allWorkersReported(step));
        assertFalse(RunWatcher.allWorkersReported(json("{'workers':'1/2'}")));
    }

    @Test
    void theLiveFigureOfAStepIsNotPrintedOnceTheStepIsDone() throws Exception {
        JsonNode body = json("{'run':{'status':'RUNNING'},'executionStatus':'RUNNING',"
                + "'current':{'stage':'formal','stepIndex':0,'targetQps':20,'endsAtMs':1,"
                + "'live':{'atMs':1,'seconds':5,'completed':99,'errors':1,'qps':19.8,'errorRatePct':1.0101,'p99Ms':12.25}}}");
        String running = RunWatcher.statusLine(body, Set.of("pre-test"));
        assertTrue(running.contains("step 1 running (target 20.0 QPS): 19.8 QPS over the last 5 s, errors 1.0 %, p99 12.3 ms"),
                running);
        JsonNode early = json("{'run':{'status':'RUNNING'},'current':{'stage':'formal','stepIndex':1,'targetQps':40,'endsAtMs':1}}");
        assertTrue(RunWatcher.statusLine(early, Set.of()).contains("step 2 running (target 40.0 QPS): no load figures yet"));
        String after = RunWatcher.statusLine(body, Set.of("pre-test", "step 1"));
        assertFalse(after.contains("QPS"), "no live figure after the step's done line: " + after);
    }

    @Test
    void theSummarySaysNotMeasuredWhenNoFormalStepRan() throws Exception {
        JsonNode report = json("{'outcome':'PRE_TEST_FAILED','outcomeReason':'pre-test-success-rate failed',"
                + "'capacity':{'maxSustainableQps':0.0,'limitedBy':'the pre-test failed its gate','measured':false},"
                + "'failureMode':{'kind':'not measured','evidence':'no formal step sent a request'},"
                + "'resilience':{'findings':[{'defence':'shedding','status':'NOT_OBSERVED','line':'no step went over capacity'},"
                + "{'defence':'deadlines','status':'NOT_OBSERVED','line':'-'},{'defence':'retry amplification','status':'NOT_OBSERVED','line':'-'},"
                + "{'defence':'bulkheads','status':'NOT_OBSERVED','line':'-'}]},"
                + "'confidence':{'score':0.0},'problems':[{},{},{}]}");
        List<String> lines = Demo.summary(report, Path.of("build/reports/run-1"));
        assertTrue(lines.contains("capacity:     not measured (the pre-test failed its gate)"), lines.toString());
        assertTrue(lines.contains("failure mode: not measured — no formal step sent a request"), lines.toString());
        assertEquals(4, lines.stream().filter(l -> l.matches("  (shedding|deadlines|retry amplification|bulkheads) .*")).count());
        assertTrue(lines.contains("problems to follow: 3 (listed at the top of report.html)"), lines.toString());
        assertTrue(lines.contains("report: " + Path.of("build/reports/run-1/report.html")), lines.toString());
    }

    @Test
    void theSummaryGivesTheCapacitysInterval() throws Exception {
        JsonNode report = json("{'outcome':'ABORTED','outcomeReason':'aborted',"
                + "'capacity':{'maxSustainableQps':40.0,'reached':true,'limitedBy':'step 3 at 60 QPS: success 83.00 %','measured':true,"
                + "'interval':{'fromQps':40.0,'toQps':60.0,'confirmed':false,'text':'between 40 and 60 QPS; unconfirmed'}},"
                + "'failureMode':{'kind':'graceful shedding','evidence':'-'},'resilience':{'findings':[]},"
                + "'confidence':{'score':0.6},'problems':[]}");
        List<String> lines = Demo.summary(report, Path.of("build/reports/run-1"));
        assertTrue(lines.contains("capacity:     40.0 QPS (between 40 and 60 QPS; unconfirmed; step 3 at 60 QPS: success 83.00 %)"),
                lines.toString());
    }
}
