package dev.richter.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class NightlyCheckTest {
    @Test
    void aCheckThatGotWorseIsARegressionAndOneThatStayedOrImprovedIsNot() {
        var before = List.of(new CheckResult("marker-sent", Outcome.PASS, "nightly", "20 of 20"),
                new CheckResult("target-answers", Outcome.WARN, "order", "refused"),
                new CheckResult("exact-count", Outcome.FAIL, "nightly", "19"));
        var tonight = List.of(new CheckResult("marker-sent", Outcome.FAIL, "nightly", "0 of 20"),
                new CheckResult("target-answers", Outcome.WARN, "order", "refused"),
                new CheckResult("exact-count", Outcome.PASS, "nightly", "20"),
                new CheckResult("no-connect-errors", Outcome.FAIL, "nightly", "new and failing"));
        var r = NightlyCheck.regressions(before, tonight);
        assertEquals(List.of("marker-sent", "no-connect-errors"), r.stream().map(m -> m.get("check")).toList());
        assertEquals("PASS", r.get(0).get("was"));
        assertEquals("FAIL", r.get(0).get("now"));
    }

    @Test
    void theFirstNightReportsOnlyNonPassingChecks() {
        var r = NightlyCheck.regressions(List.of(), List.of(new CheckResult("a", Outcome.PASS, "s", ""),
                new CheckResult("b", Outcome.WARN, "s", "")));
        assertEquals(List.of("b"), r.stream().map(m -> m.get("check")).toList());
    }
}
