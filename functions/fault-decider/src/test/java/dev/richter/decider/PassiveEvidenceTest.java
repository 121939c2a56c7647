package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class PassiveEvidenceTest {
    private static final long NOW_MS = 1_000_000_500L;
    private static final long NOW_S = NOW_MS / 1000;

    private static PassiveEvidence failing(long fromSec, long toSec, long... gaps) {
        List<LoadWindow> windows = new ArrayList<>();
        outer:
        for (long s = fromSec; s <= toSec; s++) {
            for (long g : gaps) {
                if (g == s) continue outer;
            }
            windows.add(new LoadWindow(s, 0, 10, 10, ""));
        }
        return PassiveEvidence.fromWindows(windows);
    }

    @Test
    void sustainedErrorRateHoldsWhenTheNewestSecondIsNotFlushedYet() {
        // seconds NOW-6 .. NOW-2 failing; NOW-1 not written yet by the load driver
        assertTrue(failing(NOW_S - 6, NOW_S - 2).everySecondErrorRateAbove(NOW_MS, 5, 0.5));
    }

    @Test
    void aGapInsideTheSpanOrStaleWindowsDoNotHold() {
        assertFalse(failing(NOW_S - 6, NOW_S - 1, NOW_S - 3).everySecondErrorRateAbove(NOW_MS, 5, 0.5), "gap");
        assertFalse(failing(NOW_S - 12, NOW_S - 4).everySecondErrorRateAbove(NOW_MS, 5, 0.5), "older than the flush lag");
        assertFalse(failing(NOW_S - 4, NOW_S - 1).everySecondErrorRateAbove(NOW_MS, 5, 0.5), "only 4 seconds");
    }
}
