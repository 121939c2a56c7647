package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.report.ProblemStore;
import dev.richter.report.TrackedProblem;
import java.time.Clock;
import java.util.Map;
import java.util.Set;

/**
 * {@code /problems}: the team's tracked problems (DESIGN.md §1 "Problems followed"), which the report function writes
 * at the end of every run ({@code ProblemTracker}) and the team follows up: status, owner, note.
 */
final class ProblemResource {
    /** The statuses a problem may have. */
    static final Set<String> STATUSES = Set.of(TrackedProblem.OPEN, TrackedProblem.ACKNOWLEDGED, TrackedProblem.RESOLVED);

    private final ProblemStore problems;
    private final AuditLog audit;
    private final InputValidator input;
    private final Clock clock;

    ProblemResource(ProblemStore problems, AuditLog audit, InputValidator input, Clock clock) {
        this.problems = problems;
        this.audit = audit;
        this.input = input;
        this.clock = clock;
    }

    /**
     * {@code GET /problems[?status=open|acknowledged|resolved][&planId=P]}: the team's problems by plan, then id, a page
     * at a time: {@code {items: [Problem], nextCursor?}} (a page read before the status filter may hold fewer items
     * than {@code limit}).
     *
     * @throws ApiException 400 for a status other than the three, a bad {@code limit} or {@code cursor}
     */
    ApiResponse list(ApiRequest req) {
        String status = req.query().getOrDefault("status", "");
        if (!status.isEmpty() && !STATUSES.contains(status)) {
            throw ApiException.badField("query.status", "must be open, acknowledged or resolved");
        }
        String planId = req.query().getOrDefault("planId", "");
        return Cursor.respond(req, "problems:" + req.teamId() + ":" + planId + ":" + status, Map.entry("teamId", req.teamId()),
                (limit, start) -> {
                    ProblemStore.ProblemPage page = problems.list(req.teamId(), planId, status, limit, start);
                    return new PlanStore.Page<>(page.items(), page.lastKey());
                }, p -> p);
    }

    /**
     * {@code PATCH /problems/{problemId}} {@code {status?, owner?, note?}} (at least one): sets those fields; a report
     * that lists a resolved problem again reopens it. Audited ({@code UpdateProblem}, target the id, before and after).
     *
     * @return 200 with the problem as written
     * @throws ApiException 400 {@code InvalidJson} or {@code ValidationFailed} for a body that is not
     *                      {@code ProblemPatch} (each path and reason); 404 for an id the team has no problem of; 409
     *                      {@code ProblemChanged} when the report function wrote it between the read and the write
     */
    ApiResponse update(ApiRequest req) {
        String id = req.path("problemId");
        JsonNode patch = input.parse("ProblemPatch", req.body());
        TrackedProblem before = problems.find(req.teamId(), id).orElseThrow(() -> ApiException.notFound("problem", id));
        TrackedProblem changed = before.withTeamFields(patch.path("status").asText(before.status()),
                patch.path("owner").asText(before.owner()).strip(), patch.path("note").asText(before.note()).strip(),
                clock.millis());
        TrackedProblem after = problems.put(changed).orElseThrow(() -> new ApiException(409, "ProblemChanged", "problem " + id
                + " was changed by a run's report at the same moment: read it again and retry"));
        audit.record(req.teamId(), req.caller(), "UpdateProblem", id, teamFields(before), teamFields(after));
        return ApiResponse.json(200, after);
    }

    private static Map<String, String> teamFields(TrackedProblem p) {
        return Map.of("status", p.status(), "owner", p.owner(), "note", p.note());
    }
}
