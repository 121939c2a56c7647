package dev.richter.api;

import java.util.Map;

/** {@code /audit}: the team's audit log (DESIGN.md §7), which every write of the API appends to. */
final class AuditResource {
    private final PlanStore store;

    AuditResource(PlanStore store) {
        this.store = store;
    }

    /** {@code GET /audit}: the team's entries, newest first, a page at a time: {@code {items: [{at, action, caller, target, before, after}]}}. */
    ApiResponse list(ApiRequest req) {
        return Cursor.respond(req, "audit:" + req.teamId(), Map.entry("teamId", req.teamId()),
                (limit, start) -> store.audit(req.teamId(), limit, start), Documents::auditEntry);
    }
}
