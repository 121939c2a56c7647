package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.links.trace.Span;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Static check {@value #NAME}: each shadow table of a scope service exists, matches its production table column by
 * column and accepts a write, as the service's own database answered Richter's agent extension (its shadow pre-check,
 * agent/README.md "Shadow pre-check", after Takin's {@code JdbcPreCheckCommandProcessor}).
 *
 * <p>Evidence: the extension's spans. A round is a root span {@value #ROUND_SPAN} ({@value #DATABASE} the JDBC URL);
 * each table checked is a child {@value #TABLE_SPAN} with {@value #TABLE}, {@value #SHADOW}, {@value #OUTCOME}
 * ({@code PASS} or {@code FAIL}) and, on FAIL, {@value #REASON}. Per scope service and database only the latest round
 * counts (an earlier failure that was fixed is gone from the answer); per table of it one result, subject {@code
 * <service> <table> -> <shadow>}: FAIL with the database's reason, or PASS. No round of a scope service in the spans:
 * one WARN (no evidence either way).
 */
public final class ShadowPreCheckEvidence {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "shadow-precheck";
    /** Name of a round's root span. */
    public static final String ROUND_SPAN = "richter.shadow-precheck";
    /** Name of one table's span, a child of its round. */
    public static final String TABLE_SPAN = "richter.shadow-precheck.table";
    static final String DATABASE = "richter.precheck.database";
    static final String TABLE = "richter.precheck.table";
    static final String SHADOW = "richter.precheck.shadow";
    static final String OUTCOME = "richter.precheck.outcome";
    static final String REASON = "richter.precheck.reason";

    private ShadowPreCheckEvidence() {}

    /**
     * @param spans  spans of the team's trace source over the look-back window (e.g. the last 24 h)
     * @param scope  service names of the test scope
     * @param window what the spans cover, for the WARN, e.g. {@code the last 24 h of directory /var/spans}
     * @return one result per table of each scope service's latest round, or one WARN when there is none
     */
    public static List<CheckResult> check(List<Span> spans, Set<String> scope, String window) {
        Map<String, Span> latestRound = new LinkedHashMap<>();
        Map<String, List<Span>> tablesOfRound = new HashMap<>();
        for (Span s : spans) {
            if (s.operation().equals(TABLE_SPAN)) {
                tablesOfRound.computeIfAbsent(s.traceId() + "/" + s.parentSpanId(), k -> new ArrayList<>()).add(s);
            } else if (s.operation().equals(ROUND_SPAN) && scope.contains(s.service())) {
                String key = s.service() + " " + s.attributes().getOrDefault(DATABASE, "");
                Span before = latestRound.get(key);
                if (before == null || s.startEpochNanos() > before.startEpochNanos()) {
                    latestRound.put(key, s);
                }
            }
        }
        if (latestRound.isEmpty()) {
            return List.of(new CheckResult(NAME, Outcome.WARN, "shadow tables", "no shadow pre-check of "
                    + String.join(", ", scope.stream().sorted().toList()) + " in " + window + ": the agent extension runs"
                    + " one when a service with table shadows (kind table) connects to its database"));
        }
        List<CheckResult> out = new ArrayList<>();
        for (Span round : latestRound.values()) {
            String at = Instant.ofEpochSecond(0, round.startEpochNanos()).toString();
            List<Span> tables = tablesOfRound.getOrDefault(round.traceId() + "/" + round.spanId(), List.of()).stream()
                    .sorted(Comparator.comparing(s -> s.attributes().getOrDefault(TABLE, ""))).toList();
            for (Span t : tables) {
                String subject = round.service() + " " + t.attributes().getOrDefault(TABLE, "?") + " -> "
                        + t.attributes().getOrDefault(SHADOW, "?");
                String where = round.attributes().getOrDefault(DATABASE, "its database") + " at " + at;
                if ("PASS".equals(t.attributes().get(OUTCOME))) {
                    out.add(new CheckResult(NAME, Outcome.PASS, subject, "the shadow exists, matches its production"
                            + " table column by column and accepts a write (" + where + ")"));
                } else {
                    out.add(new CheckResult(NAME, Outcome.FAIL, subject, t.attributes().getOrDefault(REASON,
                            "the pre-check failed without a reason") + " (" + where + ")"));
                }
            }
        }
        return out;
    }
}
