package dev.richter.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The bottleneck of each formal step: the service whose self-time per request ({@link TraceEvidence.StepTraces#selfMsPerRequest})
 * grew most since the previous step that has traces (formal step 1 against the last traced step before the formal
 * stage: the warm-up's last, on warm targets, or the pre-test when the run has no warm-up), with the saturation signals
 * the fault decider saw for it during the step's window (DESIGN.md §4 "Saturation").
 */
public final class Bottlenecks {
    private Bottlenecks() {}

    /**
     * One saturation signal over a step: how often and how far it was past its threshold.
     *
     * @param metric e.g. {@code hostCpuRatio}
     * @param peak   the highest value seen in the step's rounds, in the metric's unit
     * @param limit  its threshold
     * @param rounds decision rounds of the step in which it was past
     */
    public record Seen(String metric, double peak, double limit, int rounds) {}

    /**
     * @param stage           stage
     * @param stepIndex       step within the stage, 0-based
     * @param module          the service whose self-time grew most; {@code ""} when the traces cannot say (see note)
     * @param beforeMsPerRequest its self-time per request in the previous traced step, milliseconds
     * @param afterMsPerRequest  its self-time per request in this step, milliseconds
     * @param saturation      the saturation signals of {@code module} past their thresholds during the step
     * @param note            why there is no module, or {@code ""}
     */
    public record Bottleneck(String stage, int stepIndex, String module, double beforeMsPerRequest,
                             double afterMsPerRequest, List<Seen> saturation, String note) {
        public Bottleneck {
            saturation = List.copyOf(saturation);
        }

        /** E.g. {@code "inventory 12.0 → 451.4 ms/request; hostCpuRatio 0.98 > 0.9 (3 rounds)"}, or the note. */
        public String text() {
            if (module.isEmpty()) return note;
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%s %.1f → %.1f ms/request", module,
                    beforeMsPerRequest, afterMsPerRequest));
            if (!saturation.isEmpty()) {
                b.append("; ").append(String.join(", ", saturation.stream().map(s -> String.format(Locale.ROOT,
                        "%s %.3g > %.3g (%d round%s)", s.metric(), s.peak(), s.limit(), s.rounds(), s.rounds() == 1 ? "" : "s")).toList()));
            }
            return b.toString();
        }
    }

    /**
     * @param beforeFormal the steps before the formal stage, in run order (the pre-test, the warm-up): the last of them
     *                     with traces is the first formal step's reference
     * @param formal       the formal steps' figures, in order (their windows select the saturation rounds)
     * @param traces       the marked traces per step
     * @param signals      every saturation signal the decider stored for the run
     * @return one per formal step that ran, in order
     */
    public static List<Bottleneck> of(List<StepFigures> beforeFormal, List<StepFigures> formal, TraceEvidence traces,
                                      List<SaturationSignal> signals) {
        List<Bottleneck> out = new ArrayList<>();
        Optional<TraceEvidence.StepTraces> previous = Optional.empty();
        for (StepFigures f : beforeFormal) {
            Optional<TraceEvidence.StepTraces> t = traces.step(f.stage(), f.stepIndex());
            if (t.isPresent()) previous = t;
        }
        for (StepFigures f : formal) {
            Optional<TraceEvidence.StepTraces> now = traces.step(f.stage(), f.stepIndex());
            out.add(one(f, previous, now, traces, signals));
            if (now.isPresent()) previous = now;
        }
        return out;
    }

    private static Bottleneck one(StepFigures f, Optional<TraceEvidence.StepTraces> before,
                                  Optional<TraceEvidence.StepTraces> after, TraceEvidence traces, List<SaturationSignal> signals) {
        if (!traces.read()) return none(f, "traces not read: " + traces.note());
        if (after.isEmpty()) return none(f, "no marked traces in this step");
        if (before.isEmpty()) return none(f, "no marked traces in an earlier step to compare with");
        String module = "";
        double growth = Double.NEGATIVE_INFINITY;
        for (var e : after.get().selfMsPerRequest().entrySet()) {
            double g = e.getValue() - before.get().selfMsPerRequest().getOrDefault(e.getKey(), 0.0);
            if (g > growth) {
                growth = g;
                module = e.getKey();
            }
        }
        if (module.isEmpty()) return none(f, "no spans with a duration in this step");
        String m = module;
        Map<String, Seen> seen = new TreeMap<>();
        for (SaturationSignal s : signals) {
            if (!s.module().equals(m) || s.atMs() < f.startedAtMs() || s.atMs() > f.endedAtMs()) continue;
            seen.merge(s.metric(), new Seen(s.metric(), s.value(), s.limit(), 1),
                    (a, b) -> new Seen(a.metric(), Math.max(a.peak(), b.peak()), a.limit(), a.rounds() + 1));
        }
        return new Bottleneck(f.stage(), f.stepIndex(), module, before.get().selfMsPerRequest().getOrDefault(module, 0.0),
                after.get().selfMsPerRequest().get(module), List.copyOf(seen.values()), "");
    }

    private static Bottleneck none(StepFigures f, String note) {
        return new Bottleneck(f.stage(), f.stepIndex(), "", 0, 0, List.of(), note);
    }
}
