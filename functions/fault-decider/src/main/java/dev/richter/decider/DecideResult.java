package dev.richter.decider;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.richter.common.model.Verdict;
import dev.richter.sizing.Quotas;
import java.util.List;

/**
 * Fault-decider task output; the monitor loop's Choice reads {@code $.continue} and its Wait reads
 * {@code $.nextRoundInS} ({@code SecondsPath}).
 *
 * @param continueRun    JSON {@code continue}: now is before {@code stepEndsAtMs} and the run's abort flag is not set
 * @param abortRequested the run's abort flag is set (by this decision or earlier)
 * @param verdicts       this round's verdicts, in module order
 * @param nextRoundInS   seconds the monitor loop waits before the next round: {@link Quotas#MONITOR_ALERT_WAIT_MS}
 *                       while any module is not HEALTHY or any evidence failed this round, otherwise
 *                       {@link Quotas#MONITOR_WAIT_MS} (whole seconds: ASL {@code SecondsPath} takes an integer)
 */
public record DecideResult(@JsonProperty("continue") boolean continueRun, boolean abortRequested, List<Verdict> verdicts,
                           int nextRoundInS) {
    public DecideResult {
        verdicts = verdicts == null ? List.of() : List.copyOf(verdicts);
    }
}
