package dev.richter.decider;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.richter.common.model.Verdict;
import java.util.List;

/**
 * Fault-decider task output; the monitor loop's Choice reads {@code $.continue}.
 *
 * @param continueRun    JSON {@code continue}: now is before {@code stepEndsAtMs} and the run's abort flag is not set
 * @param abortRequested the run's abort flag is set (by this decision or earlier)
 * @param verdicts       this round's verdicts, in module order
 */
public record DecideResult(@JsonProperty("continue") boolean continueRun, boolean abortRequested, List<Verdict> verdicts) {
    public DecideResult {
        verdicts = verdicts == null ? List.of() : List.copyOf(verdicts);
    }
}
