package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ShadowCheck;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;

/**
 * The evidence of one shadow pre-check round, as traces Richter reads (shape in agent/README.md, "Shadow pre-check"):
 * a root span {@value #ROUND} for the database, and one child {@value #TABLE} per {@code kind: table} shadow whose
 * production table the database has (none at all: no span, a log line), made
 * with the agent's {@link GlobalOpenTelemetry} tracer (scope {@value #SCOPE}) and exported with the service's other
 * spans. A failed table is also a log line.
 */
public final class ShadowPreCheckSpans {
    /** The round's span name. */
    public static final String ROUND = "richter.shadow-precheck";
    /** A table's span name (a child of the round's). */
    public static final String TABLE = "richter.shadow-precheck.table";
    /** The instrumentation scope of both. */
    public static final String SCOPE = "dev.richter.agent";
    /** The database checked: its JDBC URL without parameters (both spans). */
    public static final String DATABASE = "richter.precheck.database";
    /** {@code PASS} or {@code FAIL}: a table's; the round's is {@code PASS} when every table passed. */
    public static final String OUTCOME = "richter.precheck.outcome";
    /** The production table (a table span). */
    public static final String PRODUCTION_TABLE = "richter.precheck.table";
    /** Its shadow (a table span). */
    public static final String SHADOW_TABLE = "richter.precheck.shadow";
    /** Why a table failed (a failed table's span only). */
    public static final String REASON = "richter.precheck.reason";
    /** How many tables the round checked: the mapped production tables this database has (the round's span). */
    public static final String TABLES = "richter.precheck.tables";
    /** The production tables that failed, comma-separated (the round's span, when one failed). */
    public static final String FAILED = "richter.precheck.failed";

    /** The mapped production tables this database does not have, comma-separated (the round's span, when any). */
    public static final String ABSENT = "richter.precheck.absent";

    private static final Logger LOG = Logger.getLogger(ShadowPreCheckSpans.class.getName());

    private ShadowPreCheckSpans() {}

    /** Exports one round; never throws (evidence only). */
    public static void record(String database, List<ShadowCheck> checks) {
        try {
            Tracer tracer = GlobalOpenTelemetry.getTracer(SCOPE);
            List<ShadowCheck> present = new ArrayList<>();
            List<String> absent = new ArrayList<>();
            List<String> failed = new ArrayList<>();
            for (ShadowCheck c : checks) {
                if (c.outcome() == ShadowCheck.Outcome.ABSENT) {
                    absent.add(c.table());
                    continue;
                }
                present.add(c);
                if (c.outcome() == ShadowCheck.Outcome.FAIL) {
                    failed.add(c.table());
                    LOG.warning("Richter isolation: shadow pre-check FAIL on " + database + ": table '" + c.table()
                            + "' → shadow '" + c.shadow() + "': " + c.reason());
                }
            }
            if (present.isEmpty()) {
                LOG.info("Richter isolation: shadow pre-check of " + database + ": none of the mapped production"
                        + " tables is in this database");
                return;
            }
            Span round = tracer.spanBuilder(ROUND).setNoParent().setAttribute(DATABASE, database)
                    .setAttribute(TABLES, (long) present.size()).setAttribute(OUTCOME, failed.isEmpty() ? "PASS" : "FAIL")
                    .startSpan();
            if (!absent.isEmpty()) {
                round.setAttribute(ABSENT, String.join(",", absent));
            }
            Context parent = Context.root().with(round);
            for (ShadowCheck c : present) {
                Span table = tracer.spanBuilder(TABLE).setParent(parent).setAttribute(DATABASE, database)
                        .setAttribute(PRODUCTION_TABLE, c.table()).setAttribute(SHADOW_TABLE, c.shadow())
                        .setAttribute(OUTCOME, c.outcome().name()).startSpan();
                if (c.outcome() == ShadowCheck.Outcome.FAIL) {
                    table.setAttribute(REASON, c.reason());
                    table.setStatus(StatusCode.ERROR, c.reason());
                }
                table.end();
            }
            if (!failed.isEmpty()) {
                round.setAttribute(FAILED, String.join(",", failed));
                round.setStatus(StatusCode.ERROR, "shadow pre-check failed for " + String.join(", ", failed));
            }
            round.end();
            LOG.info("Richter isolation: shadow pre-check of " + database + ": " + (present.size() - failed.size())
                    + " of " + present.size() + " table shadows pass");
        } catch (RuntimeException | LinkageError e) {
            LOG.warning("Richter isolation: could not record the shadow pre-check of " + database + ": " + e);
        }
    }
}
