package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.Counters;
import dev.richter.common.model.WorkerResult;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The steps table's in-flight column ({@link HtmlReport#inFlight}): peak over cap per worker, and when the cap bound. */
class InFlightColumnTest {
    private static StepFigures step(int cap, int peak) {
        Counters c = new Counters(100, 100, 100, Map.of(), 0, 0, 0, 0, 100);
        return StepFigures.merge(1, List.of(new WorkerResult("run-1", "formal", 0, 0, 1, 100, 0, 1_000, c, null, null,
                false, 0, 0, 0, List.of(), 990, cap, peak)));
    }

    @Test
    void showsThePeakOverTheCapAndSaysWhenTheCapBound() {
        assertEquals("12/2000", HtmlReport.inFlight(step(2000, 12)));
        assertEquals("900/900 (cap bound)", HtmlReport.inFlight(step(900, 900)));
        assertEquals("\u2013", HtmlReport.inFlight(step(0, 0)), "a result from before the figures");
    }
}
