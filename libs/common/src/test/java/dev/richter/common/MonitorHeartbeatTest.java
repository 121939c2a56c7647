package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** {@link MonitorHeartbeat}: when a worker decides that nobody watches its load, and the reasons it gives. */
class MonitorHeartbeatTest {
    private static final long LEG_START = 1_000_000;

    @Test
    void aMonitorThatDecidesInTimeIsNotLate() {
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START + 5_000, LEG_START, LEG_START, OptionalLong.empty(), 6_000));
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START + 9_000, LEG_START, LEG_START, OptionalLong.of(LEG_START + 3_000), 6_000));
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START - 60_000, LEG_START, LEG_START, OptionalLong.empty(), 6_000),
                "before the leg starts nothing is watched yet");
    }

    @Test
    void noDecisionForLongerThanTheBoundSinceTheLaterOfBeatAndStepStartIsLate() {
        assertEquals(Optional.of("monitoring lost: late round: no decision for 6.5 s (bound 6.0 s)"),
                MonitorHeartbeat.late(LEG_START + 6_500, LEG_START, LEG_START, OptionalLong.empty(), 6_000));
        assertEquals(Optional.of("monitoring lost: late round: no decision for 7.0 s (bound 6.0 s)"),
                MonitorHeartbeat.late(LEG_START + 10_000, LEG_START, LEG_START, OptionalLong.of(LEG_START + 3_000), 6_000));
        // a decision of an earlier step does not count: the step's first decision is due within the bound of its start
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START + 2_000, LEG_START, LEG_START, OptionalLong.of(LEG_START - 20_000), 6_000));
    }

    @Test
    void aNewLegIsNoEvidenceOfALiveMonitor() {
        long stepStart = LEG_START - 8_000;   // the worker's leg is the step's second, 8 s in
        // the first leg's monitor decided 1 s into the step, then hung: the second leg's workers are late at once
        assertEquals(Optional.of("monitoring lost: late round: no decision for 7.0 s (bound 6.0 s)"),
                MonitorHeartbeat.late(LEG_START, LEG_START, stepStart, OptionalLong.of(stepStart + 1_000), 6_000));
        // no decision at all in the step: counted from the step's start, not the leg's
        assertEquals(Optional.of("monitoring lost: late round: no decision for 8.0 s (bound 6.0 s)"),
                MonitorHeartbeat.late(LEG_START, LEG_START, stepStart, OptionalLong.empty(), 6_000));
        // decisions kept coming across the legs: not late
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START + 500, LEG_START, stepStart, OptionalLong.of(LEG_START - 1_500), 6_000));
    }

    @Test
    void aTaskWithoutABoundIsNeverLate() {
        assertEquals(Optional.empty(), MonitorHeartbeat.late(LEG_START + 600_000, LEG_START, LEG_START, OptionalLong.empty(), 0));
    }

    @Test
    void aFailedStateNamesTheStateTheErrorAndTheFunctionsMessage() {
        assertEquals("monitoring lost: Decide: Richter.InjectedFault (fault injected by the local stack)",
                MonitorHeartbeat.failed("Decide", "Richter.InjectedFault",
                        "{\"errorType\":\"Richter.InjectedFault\",\"errorMessage\":\"fault injected by the local stack\"}"));
        assertEquals("monitoring lost: Probe: Lambda.TooManyRequestsException (Rate Exceeded.)",
                MonitorHeartbeat.failed("Probe", "Lambda.TooManyRequestsException", "Rate Exceeded."));
        assertEquals("monitoring lost: Probe: States.Timeout", MonitorHeartbeat.failed("Probe", "States.Timeout", null));
        assertEquals("monitoring lost: Probe: Lambda.TooManyRequestsException (Rate Exceeded."
                        + " ReservedFunctionConcurrentInvocationLimitExceeded)",
                MonitorHeartbeat.failed("Probe", "Lambda.TooManyRequestsException", "{\"Type\":\"User\",\"message\":\"Rate Exceeded.\","
                        + "\"Reason\":\"ReservedFunctionConcurrentInvocationLimitExceeded\"}"));
        String longCause = "x".repeat(500);
        assertTrue(MonitorHeartbeat.failed("Decide", "E", longCause).length() < 240);
    }

    @Test
    void anUnreadableFlagSaysForHowLong() {
        assertEquals("monitoring lost: abort flag: unreadable for 2.5 s: ThrottlingException",
                MonitorHeartbeat.unreadable(2_500, "ThrottlingException"));
    }
}
