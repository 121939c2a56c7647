package dev.richter.report;

import static dev.richter.report.Report.Status.FAILS;
import static dev.richter.report.Report.Status.HOLDS;
import static dev.richter.report.Report.Status.NOT_OBSERVED;
import static dev.richter.report.Report.Status.WEAK;

import dev.richter.common.model.Verdict;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Judges the defences a system needs against progressive collapse from the run's own evidence, one
 * {@link Report.Finding} each, and from them the failure mode. Plain Java.
 *
 * <ul>
 *   <li><b>Shedding</b>: over capacity, does the target answer 429/503 fast ({@link #FAST_SHED_P99_MS}) with a valid
 *       {@code Retry-After} (RFC 9110 §10.2.3: seconds or HTTP-date; corpus bug 28)? From the steps' counters and the
 *       load driver's {@link StepOverload} records.</li>
 *   <li><b>Deadlines</b>: do slow responses end at a bounded time, or grow until they reach the client deadline
 *       (the plan's {@code requestTimeoutMs})? From the steps' p99 and timeouts.</li>
 *   <li><b>Retry amplification</b>: downstream calls and retries per entry request, from the marked traces
 *       ({@link TraceEvidence}: retries are repeated CLIENT spans to the same operation from the same caller, never
 *       database or messaging spans), compared between neighbouring steps with traces over the same request mix (the
 *       entries both have, weighted by the earlier step's traces). Calls growing by more than
 *       {@link #AMPLIFICATION_GROWTH} with retries growing too means retries multiply load. One step with traces, or
 *       neighbours sharing no entry, shows no growth either way: NOT_OBSERVED.</li>
 *   <li><b>Bulkheads</b>: while a module is SUSPECT or DAMAGED, does the p99 of entries whose traces never reach it
 *       grow more than {@link #BULKHEAD_LEAK_GROWTH}× (and by {@link #BULKHEAD_LEAK_MIN_MS} ms) over the same entries
 *       at the neighbouring step, the formal step just before? Never over the pre-test, which runs at a far lower
 *       rate; without a comparable step: NOT_OBSERVED, with the reason.</li>
 * </ul>
 * A finding is NOT_OBSERVED when the run never pushed far enough to tell or the evidence is absent. Only steps that sent
 * at least one request count: a step that sent nothing says nothing about the system.
 */
public final class ResilienceVerdict {
    /** The 99th percentile under which a 429/503 counts as fast (shed at the door, not queued work), milliseconds. */
    public static final double FAST_SHED_P99_MS = 250;
    /**
     * The least 429/503 answers a step needs before shedding is judged from it: at least this many, and at least
     * {@link #MIN_SHED_PCT} % of its requests. Fewer are a handful of errors (a fallback route's 503 when its dependency
     * died), not a service turning work away at the door.
     */
    public static final long MIN_SHED_ANSWERS = 10;
    /** The least share of a step's requests answered 429/503 before shedding is judged from it, percent. */
    public static final double MIN_SHED_PCT = 1.0;
    /** Growth of downstream calls per entry request over the first step with traces that means amplification (25 %). */
    public static final double AMPLIFICATION_GROWTH = 1.25;
    /** Marked traces a step needs before its calls per request are compared. */
    public static final long MIN_TRACES_PER_STEP = 10;
    /** p99 growth of an independent entry that means a damaged module's latency leaks into it. */
    public static final double BULKHEAD_LEAK_GROWTH = 2.0;
    /** ... and by at least this much, milliseconds (noise on fast entries is not a leak). */
    public static final double BULKHEAD_LEAK_MIN_MS = 50;

    /** Defence name: fast 429/503 with Retry-After over capacity. */
    public static final String SHEDDING = "shedding";
    /** Defence name: slow responses end at a bounded time. */
    public static final String DEADLINES = "deadlines";
    /** Defence name: downstream calls per entry request stay flat with load. */
    public static final String RETRIES = "retry amplification";
    /** Defence name: a damaged module's latency stays out of entries that do not call it. */
    public static final String BULKHEADS = "bulkheads";

    private ResilienceVerdict() {}

    /**
     * @param preTest          the pre-test's figures (empty when it did not run)
     * @param formal           the formal steps' figures, in order
     * @param overload         per step {@code <stage>#<stepIndex>}: the 429/503 the load driver recorded (absent when it
     *                         recorded none, or cannot)
     * @param traces           the marked traces per step and entry
     * @param verdictChanges   the verdict timeline ({@link ReportBuilder#changes})
     * @param requestTimeoutMs the client deadline of every request, milliseconds
     */
    public record Inputs(List<StepFigures> preTest, List<StepFigures> formal, Map<String, StepOverload> overload,
                         TraceEvidence traces, List<Verdict> verdictChanges, int requestTimeoutMs) {}

    /** The four findings. */
    public static Report.Resilience assess(Inputs in) {
        List<StepFigures> ran = in.formal().stream().filter(ResilienceVerdict::ran).toList();
        Optional<StepFigures> over = ran.stream().filter(ResilienceVerdict::overCapacity).findFirst();
        return new Report.Resilience(List.of(shedding(in, ran, over), deadlines(in, ran, over), retries(in, over),
                bulkheads(in)));
    }

    /** True when the step sent at least one request. */
    static boolean ran(StepFigures f) {
        return f.counters().sent() > 0;
    }

    /** True when the step sent requests and missed the sustained criteria on them. */
    static boolean overCapacity(StepFigures f) {
        return ran(f) && !ReportBuilder.healthy(f);
    }

    /** 429 and 503 responses of a step. */
    static long shed(StepFigures f) {
        return f.counters().httpErrors().getOrDefault("429", 0L) + f.counters().httpErrors().getOrDefault("503", 0L);
    }

    static double p99(StepFigures f) {
        return f.latencyMs().getOrDefault("p99", 0.0);
    }

    /**
     * Answers a step needs before its p99 is compared with another step's: a p99 of n answers rests on its n/100
     * slowest, so below this the comparison reads the p90 instead (a 40 QPS step of 10 s has 400 answers: a p99 of 4,
     * which one slow request moves; a p90 of 40).
     */
    static final long P99_MIN_ANSWERS = 1_000;

    /**
     * Whether the latency's tail grew more than {@link ReportBuilder#COLLAPSE_P99_GROWTH}× from step {@code a} to
     * {@code b}: the p99 when both steps have {@link #P99_MIN_ANSWERS} answers, else the p90.
     *
     * @return the growth as the report says it, e.g. {@code p90 grew 2.4× over the step before}; empty when it did not
     */
    static Optional<String> tailGrowth(StepFigures a, StepFigures b) {
        String q = answered(a) >= P99_MIN_ANSWERS && answered(b) >= P99_MIN_ANSWERS ? "p99" : "p90";
        double before = a.latencyMs().getOrDefault(q, 0.0);
        double after = b.latencyMs().getOrDefault(q, 0.0);
        if (before > 0 && after > ReportBuilder.COLLAPSE_P99_GROWTH * before) {
            return Optional.of(String.format(Locale.ROOT, "%s grew %.1f\u00d7 over the step before", q, after / before));
        }
        return Optional.empty();
    }

    private static long answered(StepFigures f) {
        return f.counters().sent() - f.counters().connectErrors();
    }

    /** Whether a step has enough 429/503 answers to judge shedding by ({@link #MIN_SHED_ANSWERS}, {@link #MIN_SHED_PCT}). */
    static boolean shedEnough(StepFigures f) {
        long shed = shed(f);
        return shed >= MIN_SHED_ANSWERS && f.counters().sent() > 0 && 100.0 * shed / f.counters().sent() >= MIN_SHED_PCT;
    }

    private static Report.Finding shedding(Inputs in, List<StepFigures> ran, Optional<StepFigures> over) {
        List<StepFigures> shedding = ran.stream().filter(ResilienceVerdict::shedEnough).toList();
        if (shedding.isEmpty()) {
            long few = ran.stream().mapToLong(ResilienceVerdict::shed).sum();
            String minimum = String.format(Locale.ROOT, "at least %d and %.0f %% of a step's requests", MIN_SHED_ANSWERS,
                    MIN_SHED_PCT);
            if (over.isEmpty()) {
                return new Report.Finding(SHEDDING, NOT_OBSERVED, ran.isEmpty() ? "no formal step sent a request"
                        : few == 0 ? "no step went over capacity (" + highest(ran) + ") and none was answered with 429/503"
                        : "no step went over capacity (" + highest(ran) + "), and its " + few + " 429/503 answer"
                        + (few == 1 ? " is" : "s are") + " too few to judge shedding by (" + minimum + ")");
            }
            StepFigures f = over.get();
            var c = f.counters();
            long otherHttp = c.httpErrors().values().stream().mapToLong(Long::longValue).sum() - shed(f);
            return new Report.Finding(SHEDDING, FAILS, String.format(Locale.ROOT,
                    "%s went over capacity (success %.2f %%, p99 %s ms) %s: %s",
                    StepLabels.label(f), f.successRatePct(), HtmlReport.ms(f.latencyMs(), "p99"),
                    shed(f) == 0 ? "without a single 429/503" : "with only " + shed(f) + " 429/503, too few to be shedding ("
                            + minimum + ")",
                    c.errors() == 0 ? "it slowed down instead" : c.timeouts() + " timeouts, " + c.connectErrors()
                            + " connect errors, " + otherHttp + " other HTTP errors " + c.httpErrors()));
        }
        StepFigures f = over.filter(ResilienceVerdict::shedEnough).orElse(shedding.get(0));
        String base = String.format(Locale.ROOT, "%s: %d of %d requests answered 429/503 (%.1f %%)", StepLabels.label(f),
                shed(f), f.counters().sent(), 100.0 * shed(f) / f.counters().sent());
        StepOverload o = in.overload().get(f.stage() + "#" + f.stepIndex());
        if (o == null || o.responses() == 0) {
            return new Report.Finding(SHEDDING, NOT_OBSERVED, base
                    + "; their latency and Retry-After were not recorded by the load driver, so shedding is not verified");
        }
        String retry = String.format(Locale.ROOT, "valid Retry-After on %d of %d (%d delay-seconds, %d HTTP-date%s), %d invalid%s, %d without",
                o.retryAfterValid(), o.responses(), o.retryAfterSeconds(), o.retryAfterDate(),
                o.minDelayS() < 0 ? "" : o.minDelayS() == o.maxDelayS() ? "; " + o.minDelayS() + " s" : "; " + o.minDelayS() + ".." + o.maxDelayS() + " s",
                o.retryAfterInvalid(), o.invalidExample().isEmpty() ? "" : " (e.g. '" + o.invalidExample() + "')", o.retryAfterAbsent());
        String speed = String.format(Locale.ROOT, "p99 %s ms", HtmlReport.fmt(o.p99Ms()));
        if (o.p99Ms() > FAST_SHED_P99_MS) {
            return new Report.Finding(SHEDDING, FAILS, base + ", slowly: " + speed + " > " + (int) FAST_SHED_P99_MS
                    + " ms (queued work, not shedding at the door); " + retry);
        }
        if (o.retryAfterValid() < o.responses()) {
            return new Report.Finding(SHEDDING, WEAK, base + ", fast (" + speed + "), but " + (o.responses() - o.retryAfterValid())
                    + " without a valid Retry-After, so clients cannot tell when to come back; " + retry);
        }
        return new Report.Finding(SHEDDING, HOLDS, base + ", fast (" + speed + "); " + retry);
    }

    private static Report.Finding deadlines(Inputs in, List<StepFigures> ran, Optional<StepFigures> over) {
        if (ran.isEmpty()) {
            return new Report.Finding(DEADLINES, NOT_OBSERVED, "no formal step sent a request");
        }
        String series = ran.stream().map(f -> HtmlReport.ms(f.latencyMs(), "p99")).collect(Collectors.joining(" \u2192 "))
                + " ms p99, " + ran.stream().map(f -> String.valueOf(f.counters().timeouts())).collect(Collectors.joining(" \u2192 "))
                + " timeouts at the " + in.requestTimeoutMs() + " ms client deadline (" + steps(ran) + ")";
        boolean anyTimeouts = ran.stream().anyMatch(f -> f.counters().timeouts() > 0);
        if (over.isEmpty() && !anyTimeouts) {
            StepFigures slowest = ran.stream().max(Comparator.comparingDouble(ResilienceVerdict::p99)).orElseThrow();
            return new Report.Finding(DEADLINES, NOT_OBSERVED, "no step got slow: p99 at most " + HtmlReport.ms(slowest.latencyMs(), "p99")
                    + " ms (" + StepLabels.name(slowest) + ") and no request reached the " + in.requestTimeoutMs() + " ms client deadline");
        }
        int growths = 0;
        boolean timeoutsGrow = false;
        for (int i = 1; i < ran.size(); i++) {
            StepFigures a = ran.get(i - 1);
            StepFigures b = ran.get(i);
            if (tailGrowth(a, b).isPresent()) {
                growths++;
            }
            timeoutsGrow |= b.counters().timeouts() > a.counters().timeouts() * (double) b.counters().sent() / Math.max(1, a.counters().sent());
        }
        if (ran.size() == 1 && ran.get(0).counters().timeouts() > 0) {
            timeoutsGrow = true;
        }
        if (anyTimeouts && timeoutsGrow || growths >= 2) {
            return new Report.Finding(DEADLINES, FAILS, "slow responses grow without bound: " + series
                    + "; the service does not end slow work itself");
        }
        if (anyTimeouts || growths == 1) {
            return new Report.Finding(DEADLINES, WEAK, "no bound shown: " + series);
        }
        return new Report.Finding(DEADLINES, HOLDS, "slow responses stay bounded over capacity: " + series);
    }

    private static Report.Finding retries(Inputs in, Optional<StepFigures> over) {
        if (!in.traces().read()) {
            return new Report.Finding(RETRIES, NOT_OBSERVED, "no traces: " + in.traces().note());
        }
        List<StepFigures> all = new ArrayList<>(in.preTest());
        all.addAll(in.formal());
        List<StepFigures> withTraces = new ArrayList<>();
        List<TraceEvidence.StepTraces> traces = new ArrayList<>();
        for (StepFigures f : all) {
            in.traces().step(f.stage(), f.stepIndex()).filter(t -> t.traces() >= MIN_TRACES_PER_STEP).ifPresent(t -> {
                withTraces.add(f);
                traces.add(t);
            });
        }
        if (withTraces.isEmpty()) {
            return new Report.Finding(RETRIES, NOT_OBSERVED, "no step had " + MIN_TRACES_PER_STEP + " marked traces in "
                    + in.traces().source());
        }
        if (withTraces.size() < 2) {
            return new Report.Finding(RETRIES, NOT_OBSERVED, String.format(Locale.ROOT, "%.2f downstream calls per entry"
                    + " request at one step only (%s): growth with load needs two steps with traces",
                    traces.get(0).callsPerRequest(), StepLabels.name(withTraces.get(0))));
        }
        List<String> pairs = new ArrayList<>();
        String grown = "";
        boolean comparedOver = false;
        for (int i = 1; i < withTraces.size(); i++) {
            Optional<MixCompared> m = compare(traces.get(i - 1), traces.get(i));
            if (m.isEmpty()) {
                continue;
            }
            MixCompared c = m.get();
            String pair = String.format(Locale.ROOT, "%s \u2192 %s: %.2f \u2192 %.2f calls, %.2f \u2192 %.2f retries per request",
                    StepLabels.name(withTraces.get(i - 1)), StepLabels.name(withTraces.get(i)), c.callsBefore(), c.callsAfter(),
                    c.retriesBefore(), c.retriesAfter());
            pairs.add(pair);
            comparedOver |= overCapacity(withTraces.get(i));
            boolean callsGrow = c.callsAfter() > c.callsBefore() * AMPLIFICATION_GROWTH + 0.05;
            if (grown.isEmpty() && callsGrow && c.retriesAfter() > c.retriesBefore()) {
                grown = pair + " over the same entries (" + String.join(", ", c.entries()) + ")";
            }
        }
        if (pairs.isEmpty()) {
            return new Report.Finding(RETRIES, NOT_OBSERVED, "no two neighbouring steps with traces share an entry, so"
                    + " calls per request of the same request mix cannot be compared");
        }
        String series = String.join("; ", pairs) + " (same entries, weighted by the earlier step's mix; retries are"
                + " repeated client spans to the same operation from the same caller, database calls excluded)";
        if (!grown.isEmpty()) {
            return new Report.Finding(RETRIES, FAILS, "downstream calls per entry request grow with load, by retries: " + grown
                    + "; retries multiply the load on the callees. " + series);
        }
        if (comparedOver) {
            return new Report.Finding(RETRIES, HOLDS, "no retry growth over capacity: " + series);
        }
        return new Report.Finding(RETRIES, NOT_OBSERVED, "no retry growth, but no step with traces went over capacity"
                + (over.isPresent() ? " (" + StepLabels.name(over.get()) + " has too few traces)" : "")
                + ": retries under overload not observed; " + series);
    }

    /**
     * Calls and retries per entry request at two steps over the entries both have, each entry weighted by its share of
     * the earlier step's traces (the same request mix at both steps).
     */
    record MixCompared(List<String> entries, double callsBefore, double callsAfter, double retriesBefore,
                       double retriesAfter) {}

    /** The two steps compared over the same mix; empty when they share no entry. */
    static Optional<MixCompared> compare(TraceEvidence.StepTraces before, TraceEvidence.StepTraces after) {
        List<String> common = new ArrayList<>();
        long weight = 0;
        for (TraceEvidence.EntryTraces e : before.entries()) {
            if (e.traces() > 0 && after.entry(e.entry()).filter(x -> x.traces() > 0).isPresent()) {
                common.add(e.entry());
                weight += e.traces();
            }
        }
        if (common.isEmpty()) {
            return Optional.empty();
        }
        double[] sums = new double[4];
        for (String entry : common) {
            TraceEvidence.EntryTraces a = before.entry(entry).orElseThrow();
            TraceEvidence.EntryTraces b = after.entry(entry).orElseThrow();
            double w = (double) a.traces() / weight;
            sums[0] += w * a.downstreamCalls() / a.traces();
            sums[1] += w * b.downstreamCalls() / b.traces();
            sums[2] += w * a.retries() / a.traces();
            sums[3] += w * b.retries() / b.traces();
        }
        return Optional.of(new MixCompared(common, sums[0], sums[1], sums[2], sums[3]));
    }

    private static Report.Finding bulkheads(Inputs in) {
        List<Verdict> degraded = in.verdictChanges().stream()
                .filter(v -> v.state() != Verdict.State.HEALTHY && !v.module().equals(ReportBuilder.LOAD_MODULE)).toList();
        if (degraded.isEmpty()) {
            Optional<Verdict> load = in.verdictChanges().stream()
                    .filter(v -> v.state() != Verdict.State.HEALTHY && v.module().equals(ReportBuilder.LOAD_MODULE))
                    .reduce((a, b) -> a.state().compareTo(b.state()) >= 0 ? a : b);
            if (load.isPresent()) {
                return new Report.Finding(BULKHEADS, NOT_OBSERVED, "only the load's own figures were " + load.get().state()
                        + " (module " + ReportBuilder.LOAD_MODULE + ": " + load.get().reason() + "); no service module was"
                        + " SUSPECT or DAMAGED, so no damage of one could be seen leaking into the others");
            }
            return new Report.Finding(BULKHEADS, NOT_OBSERVED, "no module was SUSPECT or DAMAGED, so no damage could leak");
        }
        List<StepFigures> all = new ArrayList<>(in.preTest());
        all.addAll(in.formal());
        List<String> lines = new ArrayList<>();
        boolean leak = false;
        boolean compared = false;
        String firstReason = "";
        for (Verdict v : degraded) {
            Optional<StepFigures> at = stepAt(all, v.atMs());
            String who = v.module() + " " + v.state() + (at.isPresent() ? " at " + StepLabels.name(at.get()) : "");
            if (!in.traces().read()) {
                firstReason = firstReason.isEmpty() ? who + ", but no traces to compare entries: " + in.traces().note() : firstReason;
                continue;
            }
            if (at.isEmpty() || in.traces().step(at.get().stage(), at.get().stepIndex()).isEmpty()) {
                firstReason = firstReason.isEmpty() ? who + ", but that step has no marked traces" : firstReason;
                continue;
            }
            StepFigures s = at.get();
            List<String> independent = new ArrayList<>();
            boolean anyIndependent = false;
            for (TraceEvidence.EntryTraces e : in.traces().step(s.stage(), s.stepIndex()).orElseThrow().entries()) {
                boolean calls = in.traces().steps().stream().flatMap(t -> t.entries().stream())
                        .filter(x -> x.entry().equals(e.entry())).anyMatch(x -> x.services().contains(v.module()));
                if (calls) {
                    continue;
                }
                anyIndependent = true;
                Optional<TraceEvidence.EntryTraces> before = baseline(in.traces(), in.formal(), s, e.entry());
                if (before.isEmpty()) {
                    continue;
                }
                compared = true;
                double from = before.get().p99Ms();
                double to = e.p99Ms();
                boolean leaks = to > BULKHEAD_LEAK_GROWTH * from && to - from > BULKHEAD_LEAK_MIN_MS;
                leak |= leaks;
                independent.add(String.format(Locale.ROOT, "%s p99 %s \u2192 %s ms%s", e.entry(), HtmlReport.fmt(from),
                        HtmlReport.fmt(to), leaks ? " (leaks)" : ""));
            }
            if (independent.isEmpty()) {
                firstReason = !firstReason.isEmpty() ? firstReason : !anyIndependent ? who + ", but every entry with"
                        + " traces calls " + v.module() + ": no independent entry" : who + ", but no entry that does not call "
                        + v.module() + " has traces at the formal step before it to compare with (the pre-test, at a far"
                        + " lower rate, is no comparable step)";
                continue;
            }
            lines.add(who + ": entries that do not call it: " + String.join(", ", independent));
        }
        if (!compared) {
            return new Report.Finding(BULKHEADS, NOT_OBSERVED, firstReason);
        }
        return new Report.Finding(BULKHEADS, leak ? FAILS : HOLDS, (leak ? "damage leaks into entries that do not call the"
                + " damaged module: " : "damage stays isolated: ") + String.join("; ", lines));
    }

    /**
     * The entry's traces at the neighbouring step: the formal step that ran just before {@code s}. Empty when {@code s}
     * is no formal step or the first one that ran (the pre-test runs at a far lower rate, so its latency is no
     * baseline), or the entry has no traces there.
     */
    private static Optional<TraceEvidence.EntryTraces> baseline(TraceEvidence traces, List<StepFigures> formal, StepFigures s,
                                                                String entry) {
        StepFigures previous = null;
        for (StepFigures f : formal) {
            if (f == s) {
                return previous == null ? Optional.empty()
                        : traces.step(previous.stage(), previous.stepIndex()).flatMap(t -> t.entry(entry));
            }
            if (ran(f)) {
                previous = f;
            }
        }
        return Optional.empty();
    }

    /** The step running at {@code atMs}, or the last one that started before it. */
    static Optional<StepFigures> stepAt(List<StepFigures> steps, long atMs) {
        StepFigures last = null;
        for (StepFigures f : steps) {
            if (f.startedAtMs() <= atMs && atMs <= f.endedAtMs()) {
                return Optional.of(f);
            }
            if (f.startedAtMs() <= atMs && f.startedAtMs() != Long.MAX_VALUE) {
                last = f;
            }
        }
        return Optional.ofNullable(last);
    }

    private static String highest(List<StepFigures> ran) {
        StepFigures top = ran.get(ran.size() - 1);
        return "the highest, " + StepLabels.label(top) + ", was sustained";
    }

    private static String steps(List<StepFigures> ran) {
        return ran.size() == 1 ? StepLabels.name(ran.get(0))
                : StepLabels.name(ran.get(0)) + ".." + (ran.get(ran.size() - 1).stepIndex() + 1);
    }

    /**
     * The failure mode: how the first formal step that sent requests and missed the criteria failed, judged from the
     * evidence it cites (never from a step that sent nothing). The first row of {@link #MODES} whose requirement the
     * step's evidence meets, in this order:
     * <ol>
     *   <li>{@code progressive collapse} needs growing latency or timeouts: p99 grew more than
     *       {@link ReportBuilder#COLLAPSE_P99_GROWTH}× over the step before, most errors are timeouts at the client
     *       deadline, or the deadlines finding {@code FAILS}; and never with 0 timeouts while deadlines {@code HOLDS}
     *       (slow work then ends at a bounded time). Retry amplification {@code FAILS} and slow 429/503 are cited as
     *       further signs, never alone (DESIGN.md §6: growing queues and timeouts, retries amplifying load);</li>
     *   <li>{@code slowdown} needs no errors: the step missed the criteria on latency alone;</li>
     *   <li>{@code slow shedding} needs at least half the errors 429/503 and the shedding finding {@code FAILS}: they
     *       were answered slowly, after queueing, but the rest stayed bounded;</li>
     *   <li>{@code graceful shedding} needs at least half the errors 429/503, answered fast (shedding does not
     *       {@code FAIL});</li>
     *   <li>{@code refused connections} needs at least half the errors connect errors (nothing listening, or a full
     *       accept queue);</li>
     *   <li>{@code fast errors} otherwise: errors answered without the growth of a collapse, mostly HTTP statuses
     *       other than 429/503 (a service failing fast, e.g. 500 on an exhausted pool, rather than shedding or
     *       queueing).</li>
     * </ol>
     *
     * @return {@code not measured}, {@code none observed}, or one of the modes above
     */
    public static Report.FailureMode failureMode(List<StepFigures> formal, Report.Resilience r) {
        List<StepFigures> ran = formal.stream().filter(ResilienceVerdict::ran).toList();
        if (ran.isEmpty()) {
            return new Report.FailureMode("not measured", formal.isEmpty() ? "no formal step ran"
                    : "no formal step sent a request (" + formal.size() + " started)");
        }
        for (int i = 0; i < ran.size(); i++) {
            StepFigures f = ran.get(i);
            if (ReportBuilder.healthy(f)) {
                if (f.aborted()) {
                    return new Report.FailureMode("none observed", "the run was aborted during " + StepLabels.name(f)
                            + " while every step so far was healthy");
                }
                continue;
            }
            return judge(f, i == 0 ? f : ran.get(i - 1), r);
        }
        return new Report.FailureMode("none observed", "every formal step that sent requests met the criteria (" + ran.size()
                + " of " + formal.size() + " started)");
    }

    /** The mode of the first step {@code f} that missed the criteria; {@code before} is the step before it (or itself). */
    private static Report.FailureMode judge(StepFigures f, StepFigures before, Report.Resilience r) {
        double prevP99 = p99(before);
        var c = f.counters();
        long errors = c.errors();
        long shed = shed(f);
        long otherHttp = c.httpErrors().values().stream().mapToLong(Long::longValue).sum() - shed;
        double p99 = p99(f);
        String evidence = String.format(Locale.ROOT,
                "%s: %d errors (%d 429/503, %d timeouts, %d connect, %d other HTTP%s), p99 %s ms vs %s ms before",
                StepLabels.label(f), errors, shed, c.timeouts(), c.connectErrors(), otherHttp,
                otherHttp == 0 ? "" : " " + otherStatuses(c.httpErrors()), HtmlReport.ms(f.latencyMs(), "p99"),
                HtmlReport.fmt(prevP99));
        String findings = String.format(Locale.ROOT, "shedding %s, deadlines %s, retry amplification %s",
                words(r.of(SHEDDING).status()), words(r.of(DEADLINES).status()), words(r.of(RETRIES).status()));
        List<String> growth = new ArrayList<>();
        if (before != f) {
            tailGrowth(before, f).ifPresent(growth::add);
        }
        if (c.timeouts() > 0 && c.timeouts() * 2 >= errors) {
            growth.add("most errors are timeouts at the client deadline");
        }
        if (r.of(DEADLINES).status() == FAILS) {
            growth.add("slow responses grow without bound (deadlines fails)");
        }
        boolean bounded = c.timeouts() == 0 && r.of(DEADLINES).status() == HOLDS;
        boolean mostlyShed = shed > 0 && shed * 2 >= errors;
        List<String> signs = new ArrayList<>(growth);
        if (r.of(RETRIES).status() == FAILS) {
            signs.add("retries multiply the load (retry amplification fails)");
        }
        if (mostlyShed && r.of(SHEDDING).status() == FAILS) {
            signs.add("429/503 answered slowly: queued work, not shedding at the door (shedding fails)");
        }
        Facts facts = new Facts(!growth.isEmpty() && !bounded, errors, mostlyShed, r.of(SHEDDING).status() == FAILS,
                c.connectErrors() * 2 >= errors, c.timeouts(), String.join("; ", signs));
        Mode m = MODES.stream().filter(x -> x.requires().test(facts)).findFirst().orElseThrow();
        String mode = m.name();
        String why = m.why().apply(facts);
        return new Report.FailureMode(mode, evidence + "; " + why + "; " + findings);
    }

    /**
     * What the failure-mode rules read of the first step that missed the criteria.
     *
     * @param growing      growing latency or timeouts, and not 0 timeouts with deadlines holding
     * @param errors       errors of the step
     * @param mostlyShed   at least half the errors are 429/503
     * @param slowShed     the shedding finding fails (429/503 answered slowly, or none over capacity)
     * @param mostlyRefused at least half the errors are connect errors
     * @param timeouts     timeouts at the client deadline
     * @param signs        the collapse signs found, joined, for the evidence
     */
    record Facts(boolean growing, long errors, boolean mostlyShed, boolean slowShed, boolean mostlyRefused, long timeouts,
                 String signs) {}

    /** One row of the failure-mode rule table: the mode, what it requires, and the reason it cites. */
    record Mode(String name, java.util.function.Predicate<Facts> requires, java.util.function.Function<Facts, String> why) {}

    /** The failure-mode rule table, first match wins ({@link #failureMode} gives each row's requirement and source). */
    static final List<Mode> MODES = List.of(
            new Mode("progressive collapse", Facts::growing, Facts::signs),
            new Mode("slowdown", x -> x.errors() == 0,
                    x -> "no errors: the step missed the criteria on latency alone, without the growth of a collapse"),
            new Mode("slow shedding", x -> x.mostlyShed() && x.slowShed(),
                    x -> "most errors are 429/503, answered slowly (queued work rejected late), while slow work stayed bounded"),
            new Mode("graceful shedding", Facts::mostlyShed, x -> "most errors are 429/503, answered fast, latency bounded"),
            new Mode("refused connections", Facts::mostlyRefused,
                    x -> "most errors are connect errors: the service stopped accepting connections, without slowing down first"),
            new Mode("fast errors", x -> true, x -> "errors answered without the growth of a collapse (" + x.timeouts()
                    + " timeouts): the service fails fast, but does not shed with 429/503"));

    /** {@code {500=120}}: the HTTP error statuses other than 429 and 503, by count. */
    private static String otherStatuses(Map<String, Long> httpErrors) {
        Map<String, Long> other = new TreeMap<>(httpErrors);
        other.remove("429");
        other.remove("503");
        return other.toString();
    }

    /** {@code holds}, {@code weak}, {@code fails}, {@code not observed}. */
    static String words(Report.Status s) {
        return s.name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }
}
