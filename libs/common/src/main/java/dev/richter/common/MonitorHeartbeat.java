package dev.richter.common;

import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The fail-safe rule for a run whose monitor stops: load that nobody watches is stopped.
 *
 * <p>The monitor loop of a leg (probe, then fault-decider) decides every 1-2 s; each decision records a heartbeat on
 * the run's item ({@link RunFlags#beat}). A worker reads the heartbeat with the abort flag on every poll
 * ({@link RunFlags#watch}) and stops, setting the abort flag, when the monitor has made no decision for longer than
 * {@link #STALE_AFTER_MS} since the later of its last heartbeat and its step's start ({@link #late}). A worker also stops when the flag itself cannot be read for {@link #UNREADABLE_AFTER_MS}: a flag
 * it cannot read is a flag nobody can set.
 *
 * <p>Why 6 s: a round is a wait of at most 2 s ({@code nextRoundInS}), a probe round bounded by its 1 s probe deadlines
 * ({@code dev.richter.sizing.RunLayout.PROBE_TIMEOUT_MS}) and a decision of some tens of milliseconds; 6 s is two rounds late. The
 * monitor failing outright (Probe or Decide throwing) does not wait for this bound: the state machine's
 * {@code MonitoringLost} state sets the flag at once. Reasons start with {@value #REASON_PREFIX}.
 */
public final class MonitorHeartbeat {
    /** The longest time without a decision before a worker stops, milliseconds. */
    public static final long STALE_AFTER_MS = 6_000;
    /**
     * The longest time since a worker's last successful abort-flag read (or its first due time, before any) after which
     * a failed poll stops it, milliseconds. With polls every 500 ms a worker stops 1.5-2 s after the flag became
     * unreadable: within the 2 s in which load must stop once Richter loses its eyes.
     */
    public static final long UNREADABLE_AFTER_MS = 1_500;
    /** Every monitoring-lost abort reason starts with this. */
    public static final String REASON_PREFIX = "monitoring lost: ";

    private MonitorHeartbeat() {
    }

    /**
     * Whether the monitor is late. The clock starts at the later of the last decision and the step's start: a step's
     * first decision must come within the bound of its start, and after that decisions must keep coming, across its
     * legs (each leg's monitor loop takes over from the previous one, so a new leg is no evidence of a live monitor).
     * Before the worker's own leg starts (its lead time, no sends) nothing is late.
     *
     * @param nowMs          now, epoch ms
     * @param legStartMs     when the worker's leg starts sending, epoch ms
     * @param stepStartMs    when the worker's step started, epoch ms (a decision before it belongs to an earlier step)
     * @param lastBeatMs     the last decision's time, epoch ms, empty before the first
     * @param staleAfterMs   the bound, milliseconds; 0 or less: the worker is not monitored (a task run by hand)
     * @return the abort reason when the monitor is later than the bound, else empty
     */
    public static Optional<String> late(long nowMs, long legStartMs, long stepStartMs, OptionalLong lastBeatMs,
                                        long staleAfterMs) {
        if (staleAfterMs <= 0 || nowMs < legStartMs) {
            return Optional.empty();
        }
        long since = Math.max(stepStartMs, lastBeatMs.orElse(Long.MIN_VALUE));
        long silentMs = nowMs - since;
        if (silentMs <= staleAfterMs) {
            return Optional.empty();
        }
        return Optional.of(String.format(Locale.ROOT, "%slate round: no decision for %.1f s (bound %.1f s)",
                REASON_PREFIX, silentMs / 1000.0, staleAfterMs / 1000.0));
    }

    /**
     * The reason for a failed monitor state.
     *
     * @param state the state that failed ({@code Probe}, {@code Decide})
     * @param error the caught error as Step Functions hands it over ({@code Error}, and {@code Cause}: for a function
     *              error the JSON of {@code {errorType, errorMessage}}), either may be null
     * @return {@code monitoring lost: <state>: <Error>} and, when there is one, {@code (<message>)} cut as {@link TaskErrors#causeSuffix} cuts it
     */
    public static String failed(String state, String error, String cause) {
        return REASON_PREFIX + state + ": " + (error == null || error.isBlank() ? "unknown error" : error)
                + TaskErrors.causeSuffix(cause);
    }

    /** The reason when the abort flag could not be read for {@code forMs} milliseconds; {@code error} is the last failure. */
    public static String unreadable(long forMs, String error) {
        return String.format(Locale.ROOT, "%sabort flag: unreadable for %.1f s: %s", REASON_PREFIX, forMs / 1000.0, error);
    }
}
