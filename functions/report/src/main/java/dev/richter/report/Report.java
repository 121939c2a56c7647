package dev.richter.report;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.MissingEvidence;
import dev.richter.common.model.Verdict;
import java.util.List;

/**
 * A run's report (DESIGN.md §1 step 6), stored as JSON and rendered as a self-contained HTML page.
 *
 * <p>Indexes: {@code stepIndex} in the JSON is 0-based within its stage (formal step 1 is {@code stepIndex} 0); every
 * text meant for people ({@code limitedBy}, evidence, problems, the HTML) numbers steps from 1. {@link #indexing()}
 * says so in the document itself.
 *
 * @param runId          run id
 * @param planId         plan id
 * @param teamId         team
 * @param planName       plan name
 * @param outcome        PASSED, STATIC_CHECKS_FAILED, PRE_TEST_FAILED, ABORTED or ERROR
 * @param outcomeReason  one sentence saying why (the failing check, the abort reason, the error)
 * @param generatedAtMs  epoch ms
 * @param staticChecks   static check results (empty when they did not run)
 * @param dynamicChecks  dynamic check results on the pre-test (empty when they did not run)
 * @param preTest        the pre-test step's figures (empty when it did not run)
 * @param warmUp         the warm-up step when it started (none when the plan turned it off): its figures are kept
 *                       apart, in neither the pre-test gate, nor the capacity, nor the confidence
 * @param formal         the formal steps that started (a step whose workers sent nothing is kept, with
 *                       {@code counters.sent} 0), in order
 * @param formalStepsPlanned number of formal steps in the plan
 * @param verdicts       verdict timeline: each module's first verdict and every change, in time order
 * @param capacity       max sustainable QPS and what limited it, or why it was not measured
 * @param failureMode    how the system degraded at its limit, decided from {@link #resilience()}
 * @param confidence     how far the figures can be trusted
 * @param missingEvidence monitoring defects per module (evidence the probes could not collect), each a WARN
 * @param problems       what to follow up, worst first: every FAIL and WARN check, SUSPECT or DAMAGED module, late or
 *                       missing worker, missing evidence, coverage and data gap, failed defence
 * @param resilience     the defences against progressive collapse, one finding each
 * @param timeSeries     per-second (or per-bucket) figures over the whole run, with step and verdict marks
 * @param latencyCurves  the HDR percentile curve of every step that recorded latency
 * @param callGraph      the plan's entries and the links below them
 * @param indexing       how {@code stepIndex} counts, in words
 * @param bottlenecks    per formal step, the service whose trace self-time per request grew most and its saturation
 *                       signals ({@link Bottlenecks})
 * @param followUp       the plan's tracked problems as this run left them: each open one observed again or not, each
 *                       new one, each resolved one that reopened ({@link ProblemTracker}); empty when not tracked
 * @param sinceLastRun   this run compared with the plan's previous finished run ({@link RunComparison})
 * @param events         the run's events in time order: alerts of the team's Alertmanager fired and resolved, verdict
 *                       changes, the abort ({@link RunEvents}); also at {@code GET /runs/{runId}/events}
 * @param businessMetrics each business metric per step against its baseline ({@link BusinessMetricTable})
 * @param middleware     per scope service, each client, store and server the run's traces show, guarded or not ({@link
 *                       ServiceMiddleware}), in service order
 * @param abort          how fast the load stopped when the run was aborted ({@link AbortTiming}: the flag's time, the
 *                       latency to the last send, the drain); null when it was not aborted or the flag's time is unknown
 * @param warmUpEnd      how a steadied warm-up ended ({@link WarmUpRule}: steady at which step and on what figures, or
 *                       not steady within its bound); null for a fixed warm-up or none
 * @param confirm        the confirm step when one ran (DESIGN.md §5 "Confirm step": midway between the last formal
 *                       step that held and the first that failed, right after it), else empty; kept apart from
 *                       {@code formal}, whose steps are the plan's ladder
 */
public record Report(String runId, String planId, String teamId, String planName, String outcome, String outcomeReason,
                     long generatedAtMs, List<CheckResult> staticChecks, List<CheckResult> dynamicChecks,
                     List<StepFigures> warmUp, List<StepFigures> preTest, List<StepFigures> formal, int formalStepsPlanned,
                     List<Verdict> verdicts, Capacity capacity, FailureMode failureMode, Confidence confidence,
                     List<MissingEvidence> missingEvidence, List<Problem> problems, Resilience resilience,
                     TimeSeries timeSeries, LatencyCurves latencyCurves, CallGraph callGraph, String indexing,
                     List<Bottlenecks.Bottleneck> bottlenecks, List<FollowedProblem> followUp,
                     SinceLastRun sinceLastRun, List<RunEvent> events,
                     List<BusinessMetricTable.BusinessMetricStep> businessMetrics, List<ServiceMiddleware> middleware,
                     AbortTiming abort, String warmUpEnd, List<StepFigures> confirm) {
    /** The text of {@link #indexing()}. */
    public static final String INDEXING = "stepIndex is 0-based within its stage (formal step 1 has stepIndex 0);"
            + " text for people numbers steps from 1";

    public Report {
        warmUp = warmUp == null ? List.of() : List.copyOf(warmUp);
        missingEvidence = missingEvidence == null ? List.of() : List.copyOf(missingEvidence);
        problems = problems == null ? List.of() : List.copyOf(problems);
        resilience = resilience == null ? new Resilience(List.of()) : resilience;
        timeSeries = timeSeries == null ? TimeSeries.EMPTY : timeSeries;
        latencyCurves = latencyCurves == null ? LatencyCurves.EMPTY : latencyCurves;
        callGraph = callGraph == null ? CallGraph.notRead("not read") : callGraph;
        indexing = indexing == null ? INDEXING : indexing;
        bottlenecks = bottlenecks == null ? List.of() : List.copyOf(bottlenecks);
        followUp = followUp == null ? List.of() : List.copyOf(followUp);
        sinceLastRun = sinceLastRun == null ? SinceLastRun.NONE : sinceLastRun;
        events = events == null ? List.of() : List.copyOf(events);
        businessMetrics = businessMetrics == null ? List.of() : List.copyOf(businessMetrics);
        middleware = middleware == null ? List.of() : List.copyOf(middleware);
        confirm = confirm == null ? List.of() : List.copyOf(confirm);
    }

    /**
     * One client, store or server a scope service used in the run's traces (issue 46 item 6), judged as the {@code
     * guarded-middleware} check judges it against the run's scope.
     *
     * @param service the scope service
     * @param library e.g. {@code reactor-netty HttpClient}
     * @param versions the library versions its instrumentation covers, e.g. {@code 1.0+}; {@code ""} when unknown
     * @param role {@code http-client}, {@code rpc-client}, {@code store} or {@code server}
     * @param scope the instrumentation scope and its version, e.g. {@code io.opentelemetry.reactor-netty-1.0
     *     2.22.0-alpha}; {@code ""} when the traces named none
     * @param system {@code db.system} / {@code messaging.system} / {@code rpc.system}, {@code ""} for none
     * @param guarded true when Richter's agent extension guards it
     * @param seenOnMarkedTraffic true when seen in a marked trace of the run
     * @param calls spans seen in the run's traces
     * @param markedCalls of which in marked traces
     * @param verdict {@code guarded}, {@code not on marked traffic}, {@code unguarded, but every marked call went to an
     *     in-scope service that enforces isolation}, {@code server not gated} or {@code unguarded on marked traffic}
     */
    public record ServiceMiddleware(String service, String library, String versions, String role, String scope,
                                    String system, boolean guarded, boolean seenOnMarkedTraffic, long calls,
                                    long markedCalls, String verdict) {
        /** The row of {@code u}, with its verdict in words. */
        static ServiceMiddleware of(dev.richter.links.middleware.MiddlewareUse u) {
            String scope = u.scopeName().isEmpty() ? "" : (u.scopeName() + " " + u.scopeVersion()).strip();
            String verdict = switch (u.verdict()) {
                case GUARDED -> "guarded";
                case NOT_ON_MARKED_TRAFFIC -> "not on marked traffic";
                case CALLEE_ISOLATED -> "unguarded, but every marked call went to an in-scope service that enforces isolation";
                case UNGATED_SERVER -> "server not gated";
                case UNGUARDED_ON_MARKED_TRAFFIC -> "unguarded on marked traffic";
            };
            return new ServiceMiddleware(u.service(), u.library(), u.versions(), u.role(), scope, u.system(), u.guarded(),
                    u.seenMarked(), u.calls(), u.markedCalls(), verdict);
        }
    }

    /** Every step in run order: the pre-test, the warm-up, the formal steps with the confirm step where it ran. */
    public List<StepFigures> allSteps() {
        return runOrder(preTest, warmUp, ReportBuilder.inRunOrder(formal, confirm));
    }

    /**
     * Steps in the order the run sends them (the state machine's): the pre-test, then, once the dynamic gate passed,
     * the warm-up, then the formal steps.
     */
    static List<StepFigures> runOrder(List<StepFigures> preTest, List<StepFigures> warmUp, List<StepFigures> formal) {
        List<StepFigures> all = new java.util.ArrayList<>(preTest);
        all.addAll(warmUp);
        all.addAll(formal);
        return all;
    }

    /** The same report with another time series (to fit a size limit). */
    public Report withTimeSeries(TimeSeries series) {
        return new Report(runId, planId, teamId, planName, outcome, outcomeReason, generatedAtMs, staticChecks, dynamicChecks,
                warmUp, preTest, formal, formalStepsPlanned, verdicts, capacity, failureMode, confidence, missingEvidence, problems,
                resilience, series, latencyCurves, callGraph, indexing, bottlenecks, followUp, sinceLastRun, events, businessMetrics,
                middleware, abort, warmUpEnd, confirm);
    }

    /** The same report with the abort's timing ({@link AbortTiming}), or null for none. */
    public Report withAbort(AbortTiming timing) {
        return new Report(runId, planId, teamId, planName, outcome, outcomeReason, generatedAtMs, staticChecks, dynamicChecks,
                warmUp, preTest, formal, formalStepsPlanned, verdicts, capacity, failureMode, confidence, missingEvidence, problems,
                resilience, timeSeries, latencyCurves, callGraph, indexing, bottlenecks, followUp, sinceLastRun, events,
                businessMetrics, middleware, timing, warmUpEnd, confirm);
    }

    /** The same report with the plan's followed problems and the comparison with its previous run. */
    public Report withHistory(List<FollowedProblem> followed, SinceLastRun since) {
        return new Report(runId, planId, teamId, planName, outcome, outcomeReason, generatedAtMs, staticChecks, dynamicChecks,
                warmUp, preTest, formal, formalStepsPlanned, verdicts, capacity, failureMode, confidence, missingEvidence, problems,
                resilience, timeSeries, latencyCurves, callGraph, indexing, bottlenecks, followed, since, events, businessMetrics,
                middleware, abort, warmUpEnd, confirm);
    }

    /**
     * A tracked problem of the plan as this run left it ({@link ProblemTracker}).
     *
     * @param id            the tracked problem's id ({@code PATCH /problems/{id}})
     * @param key           its key
     * @param kind          its kind
     * @param subject       its subject
     * @param change        {@code new} (first listed by this run), {@code observed again} (open or acknowledged, and
     *                      listed again), {@code not observed} (open or acknowledged, and not listed by this run) or
     *                      {@code reopened} (resolved, and listed again: open once more)
     * @param status        its status after this run
     * @param firstRunId    the first run that listed it
     * @param runsSeen      reports that listed it, this one included
     * @param owner         who follows it up; empty when nobody
     * @param note          the team's note
     */
    public record FollowedProblem(String id, String key, String kind, String subject, String change, String status,
                                  String firstRunId, int runsSeen, String owner, String note) {}

    /**
     * The "since the last run" section: this run compared with the previous finished run of the same plan.
     *
     * @param note       why there is no comparison ({@code first run of the plan}, ...), empty when there is one
     * @param comparison the comparison; null when there is none
     */
    public record SinceLastRun(String note, RunComparison comparison) {
        /** Not compared (a report built outside a run's end). */
        public static final SinceLastRun NONE = new SinceLastRun("not compared", null);
    }

    /**
     * @param maxSustainableQps highest formal step rate that met the criteria; 0 when none did or nothing was measured.
     *                          With {@code reached} false it is a lower bound: the capacity is at least this
     * @param reached           true when a formal step that sent requests missed the criteria, so the capacity is
     *                          {@code maxSustainableQps} (below the next step's rate); false when it was not reached
     *                          (every step sustained, or the run stopped before a step could miss): the capacity is
     *                          at least {@code maxSustainableQps} (the page says "≥ 80 QPS")
     * @param limitedBy         the first step that did not, and why; or why capacity is unknown
     * @param criteria          the criteria applied
     * @param measured          false when no formal step sent a request, or something other than the load aborted
     *                          the run before any formal step was sustained ({@code limitedBy} "not measured: aborted
     *                          by <reason> at step N", {@link ReportBuilder#faultCausedAbort}): there is no capacity
     *                          figure at all (the page says "not measured", never "0 QPS")
     * @param interval          where the capacity lies and whether the knee was confirmed ({@link Interval#NONE}
     *                          when not measured)
     */
    public record Capacity(double maxSustainableQps, boolean reached, String limitedBy, String criteria,
                           boolean measured, Interval interval) {
        public Capacity {
            interval = interval == null ? Interval.NONE : interval;
        }

        /** A capacity whose interval is not stated yet ({@link ReportBuilder#withInterval} states it). */
        public Capacity(double maxSustainableQps, boolean reached, String limitedBy, String criteria, boolean measured) {
            this(maxSustainableQps, reached, limitedBy, criteria, measured, Interval.NONE);
        }

        /** The same capacity with {@code i} as its interval. */
        public Capacity withInterval(Interval i) {
            return new Capacity(maxSustainableQps, reached, limitedBy, criteria, measured, i);
        }
    }

    /**
     * The capacity's own uncertainty: it lies in {@code [fromQps, toQps)}, between the last formal step that met the
     * criteria and the first that did not (a step ladder measures no rate between its steps).
     *
     * @param fromQps   the last sustained step's rate, requests per second (0 when the first step failed)
     * @param toQps     the first failing step's rate, requests per second; 0 when no step failed (the interval is open
     *                  above: the capacity is at least {@code fromQps})
     * @param confirmed true when the knee's two steps each measured the same way twice: both halves of the step below
     *                  it held and every half of the step above it failed ({@code ReportBuilder.withInterval}; a
     *                  confirm step counts its second half only)
     * @param text      the interval as people read it, e.g. {@code between 40 and 60 QPS; unconfirmed}, or empty
     */
    public record Interval(double fromQps, double toQps, boolean confirmed, String text) {
        /** No capacity was measured, so there is no interval. */
        public static final Interval NONE = new Interval(0, 0, false, "");
    }

    /**
     * @param kind     {@code not measured} (no formal step sent a request), {@code none observed},
     *                 {@code progressive collapse}, {@code slowdown}, {@code slow shedding}, {@code graceful shedding},
     *                 {@code refused connections} or {@code fast errors} ({@link ResilienceVerdict#failureMode})
     * @param evidence figures behind the classification
     */
    public record FailureMode(String kind, String evidence) {}

    /**
     * @param score   0..1, 1 = figures fully trustworthy
     * @param reasons each deduction and why
     */
    public record Confidence(double score, List<String> reasons) {}

    /**
     * One thing to follow up after the run.
     *
     * @param severity FAIL (the run or a safety property is broken) or WARN (something to look at)
     * @param kind     what raised it: {@code check}, {@code module}, {@code worker}, {@code missing evidence},
     *                 {@code coverage}, {@code data}, {@code resilience}
     * @param subject  the check and its subject, the module, the worker, the entry...
     * @param problem  what was seen, with its figures
     * @param next     what to do next
     * @param key      its identity across the runs of the plan, from its kind and subject and never its figures
     *                 ({@code check:<check>:<subject>}, else {@code <kind>:<subject>}): the key of its
     *                 {@link TrackedProblem}
     */
    public record Problem(CheckResult.Outcome severity, String kind, String subject, String problem, String next, String key) {
        /** A problem keyed {@code <kind>:<subject>}. */
        public Problem(CheckResult.Outcome severity, String kind, String subject, String problem, String next) {
            this(severity, kind, subject, problem, next, kind + ":" + subject);
        }
    }

    /**
     * The defences a system needs against progressive collapse, judged from the run's own evidence.
     *
     * @param findings one per defence: shedding, deadlines, retry amplification, bulkheads, degradation (in that order)
     */
    public record Resilience(List<Finding> findings) {
        public Resilience {
            findings = List.copyOf(findings);
        }

        /** The finding of {@code defence}, or a NOT_OBSERVED one when the report has none. */
        public Finding of(String defence) {
            return findings.stream().filter(f -> f.defence().equals(defence)).findFirst()
                    .orElse(new Finding(defence, Status.NOT_OBSERVED, "not assessed"));
        }
    }

    /** How a defence fared. */
    public enum Status {
        /** The evidence shows the defence working under load that needed it. */
        HOLDS,
        /** The defence is there but incomplete (e.g. fast 503s without a valid Retry-After). */
        WEAK,
        /** The evidence shows the defence missing or broken. */
        FAILS,
        /** The run did not push far enough, or the evidence was not recorded. */
        NOT_OBSERVED
    }

    /**
     * @param defence {@code shedding}, {@code deadlines}, {@code retry amplification}, {@code bulkheads} or {@code degradation}
     * @param status  the judgement
     * @param line    one sentence with the numbers behind it (steps numbered from 1)
     */
    public record Finding(String defence, Status status, String line) {}
}
