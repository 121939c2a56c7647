package dev.richter.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Follows a report's problems across the runs of its plan (DESIGN.md §1 "Problems followed"). At the end of a run,
 * every problem the report lists ({@link Report.Problem#key()}) is created as an {@code open} {@link TrackedProblem}
 * or updated (last run seen, runs seen, its latest text); a {@code resolved} one listed again is {@code open} once
 * more ({@code reopened}); an {@code open} or {@code acknowledged} one the report does not list is left as it is and
 * reported {@code not observed} (only the team resolves a problem). The report says, for each, what changed
 * ({@link Report.FollowedProblem}).
 */
public final class ProblemTracker {
    /** Attempts at one problem's write when another writer (the API's {@code PATCH}) changed it in between. */
    static final int MAX_ATTEMPTS = 3;

    private final ProblemStore store;

    /** @param store the tracked problems */
    public ProblemTracker(ProblemStore store) {
        this.store = store;
    }

    /**
     * Records the report's problems and answers the plan's followed problems as this run left them: the report's own,
     * in its order, then those it did not list.
     *
     * @param report the run's report
     * @param nowMs  epoch ms of the report
     * @throws software.amazon.awssdk.core.exception.SdkException when DynamoDB fails
     * @throws IllegalStateException when a problem's write lost {@value #MAX_ATTEMPTS} races in a row
     */
    public List<Report.FollowedProblem> track(Report report, long nowMs) {
        Map<String, TrackedProblem> tracked = byKey(store.ofPlan(report.teamId(), report.planId()));
        Map<String, Report.Problem> listed = listed(report.problems());
        List<Report.FollowedProblem> out = new ArrayList<>();
        for (Report.Problem p : listed.values()) {
            TrackedProblem written = null;
            for (int attempt = 0; attempt < MAX_ATTEMPTS && written == null; attempt++) {
                TrackedProblem next = seen(Optional.ofNullable(tracked.get(p.key())), p, report, nowMs);
                written = store.put(next).orElse(null);
                if (written == null) {
                    tracked = byKey(store.ofPlan(report.teamId(), report.planId()));
                }
            }
            if (written == null) {
                throw new IllegalStateException("tracked problem " + p.key() + " of plan " + report.planId()
                        + " changed under " + MAX_ATTEMPTS + " writes in a row");
            }
            TrackedProblem before = tracked.get(p.key());
            out.add(followed(written, before == null ? "new"
                    : before.status().equals(TrackedProblem.RESOLVED) ? "reopened" : "observed again"));
        }
        for (TrackedProblem t : tracked.values()) {
            if (!listed.containsKey(t.key()) && !t.status().equals(TrackedProblem.RESOLVED)) {
                out.add(followed(t, "not observed"));
            }
        }
        return out;
    }

    /**
     * The tracked problem after a report listed {@code p}: a new {@code open} one, or {@code known} with this run as
     * its last, reopened when it was resolved.
     */
    static TrackedProblem seen(Optional<TrackedProblem> known, Report.Problem p, Report report, long nowMs) {
        String severity = p.severity().name();
        if (known.isEmpty()) {
            return new TrackedProblem(TrackedProblem.idOf(report.teamId(), report.planId(), p.key()), report.teamId(),
                    report.planId(), p.key(), p.kind(), p.subject(), severity, TrackedProblem.OPEN, "", "", report.runId(),
                    report.runId(), nowMs, nowMs, 1, 0, p.problem(), nowMs, 0);
        }
        TrackedProblem t = known.get();
        boolean again = t.lastRunId().equals(report.runId()); // a report written twice counts its run once
        boolean reopen = t.status().equals(TrackedProblem.RESOLVED);
        return new TrackedProblem(t.id(), t.teamId(), t.planId(), t.key(), p.kind(), p.subject(), severity,
                reopen ? TrackedProblem.OPEN : t.status(), t.owner(), t.note(), t.firstRunId(), report.runId(),
                t.firstSeenAtMs(), nowMs, t.runsSeen() + (again ? 0 : 1), t.reopenedCount() + (reopen ? 1 : 0), p.problem(),
                nowMs, t.version());
    }

    /** The report's problems by key, the first of each key (FAILs come first). */
    static Map<String, Report.Problem> listed(List<Report.Problem> problems) {
        Map<String, Report.Problem> out = new LinkedHashMap<>();
        problems.forEach(p -> out.putIfAbsent(p.key(), p));
        return out;
    }

    private static Map<String, TrackedProblem> byKey(List<TrackedProblem> problems) {
        return problems.stream().collect(Collectors.toMap(TrackedProblem::key, Function.identity(), (a, b) -> a,
                LinkedHashMap::new));
    }

    private static Report.FollowedProblem followed(TrackedProblem t, String change) {
        return new Report.FollowedProblem(t.id(), t.key(), t.kind(), t.subject(), change, t.status(), t.firstRunId(),
                t.runsSeen(), t.owner(), t.note());
    }
}
