package dev.richter.report;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A problem a report listed, followed across the runs of its plan (DESIGN.md §1 "Problems followed"): the report
 * function creates it the first time a report lists it and updates it at the end of every later run of the plan; the
 * team sets its status, owner and note ({@code PATCH /problems/{id}}).
 *
 * @param id            {@code prb-<16 hex>}: the first 8 bytes of SHA-256 of {@code teamId \n planId \n key}, so the
 *                      same problem of the same plan always has the same id
 * @param teamId        the plan's team
 * @param planId        the plan whose runs list it
 * @param key           its stable identity within the plan, from its kind and subject and never its figures:
 *                      {@code check:<check>:<subject>}, {@code module:<module>}, {@code resilience:<defence>},
 *                      {@code worker:<step or worker>}, ...
 * @param kind          the report's kind ({@code check}, {@code module}, {@code worker}, {@code resilience}, ...)
 * @param subject       the report's subject
 * @param severity      {@code FAIL} or {@code WARN}, as last listed
 * @param status        {@code open}, {@code acknowledged} or {@code resolved}
 * @param owner         who follows it up; empty when nobody
 * @param note          the team's note; empty when none
 * @param firstRunId    the first run whose report listed it
 * @param lastRunId     the latest run whose report listed it
 * @param firstSeenAtMs epoch ms of the first report that listed it
 * @param lastSeenAtMs  epoch ms of the latest report that listed it
 * @param runsSeen      how many reports listed it
 * @param reopenedCount how many times a report listed it again after it was resolved
 * @param problem       the latest report's text of it (with that run's figures)
 * @param updatedAtMs   epoch ms of the last write
 * @param version       the write count, for optimistic concurrency ({@link ProblemStore#put}); 0 before the first write
 */
public record TrackedProblem(String id, String teamId, String planId, String key, String kind, String subject,
                             String severity, String status, String owner, String note, String firstRunId,
                             String lastRunId, long firstSeenAtMs, long lastSeenAtMs, int runsSeen, int reopenedCount,
                             String problem, long updatedAtMs, long version) {
    /** Not yet dealt with. */
    public static final String OPEN = "open";
    /** Someone follows it up; still listed by the reports that see it. */
    public static final String ACKNOWLEDGED = "acknowledged";
    /** Fixed, as the team says; a report that lists it again reopens it. */
    public static final String RESOLVED = "resolved";

    /** The id of {@code key} in {@code planId} of {@code teamId}: {@code prb-} and 16 hex digits. */
    public static String idOf(String teamId, String planId, String key) {
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256")
                    .digest((teamId + "\n" + planId + "\n" + key).getBytes(StandardCharsets.UTF_8));
            return "prb-" + HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is in every JDK", e);
        }
    }

    /** The same problem with another status, owner and note, written at {@code nowMs}. */
    public TrackedProblem withTeamFields(String newStatus, String newOwner, String newNote, long nowMs) {
        return new TrackedProblem(id, teamId, planId, key, kind, subject, severity, newStatus, newOwner, newNote, firstRunId,
                lastRunId, firstSeenAtMs, lastSeenAtMs, runsSeen, reopenedCount, problem, nowMs, version);
    }
}
