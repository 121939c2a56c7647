package dev.richter.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The report's business-metric table: each business metric of each step against its baseline (DESIGN.md §4 "The
 * team's own evidence"), from the decider's stored rounds ({@link BusinessMetricRound}).
 */
public final class BusinessMetricTable {
    private BusinessMetricTable() {}

    /**
     * One metric in one step.
     *
     * @param module       the module
     * @param name         the metric
     * @param step         the step's label, e.g. {@code formal 2 · 40 QPS}
     * @param rounds       rounds that read it
     * @param meanValue    the mean of the values read
     * @param baseline     the mean baseline of the judged rounds (scaled by the rate when load-proportional), NaN when none
     * @param ratio        {@code meanValue / baseline}, NaN without a baseline
     * @param breachRounds rounds past the metric's expectation
     */
    public record BusinessMetricStep(String module, String name, String step, int rounds, double meanValue, double baseline, double ratio,
                      int breachRounds) {}

    /**
     * The rows, in step order then module and metric name; a round is placed in the step whose span holds its time
     * ({@code ResilienceVerdict.stepAt}), else in the step its stored key names ({@code <stage>#<stepIndex>}, e.g. a
     * round read just after the pre-test ended), else under that key as stored.
     */
    public static List<BusinessMetricStep> of(List<BusinessMetricRound> rounds, List<StepFigures> steps) {
        Map<String, List<BusinessMetricRound>> byKey = new LinkedHashMap<>();
        Map<String, Integer> order = new LinkedHashMap<>();
        for (int i = 0; i < steps.size(); i++) order.put(StepLabels.label(steps.get(i)), i);
        Map<String, String> label = new TreeMap<>();
        for (BusinessMetricRound r : rounds) {
            String step = ResilienceVerdict.stepAt(steps, r.atMs()).or(() -> stored(steps, r.step()))
                    .map(StepLabels::label).orElse(r.step());
            String key = String.format("%04d", order.getOrDefault(step, 9999)) + "\u0000" + step + "\u0000" + r.module()
                    + "\u0000" + r.name();
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(r);
            label.put(key, step);
        }
        List<BusinessMetricStep> out = new ArrayList<>();
        for (String key : new TreeMap<>(byKey).keySet()) {
            List<BusinessMetricRound> rs = byKey.get(key);
            double mean = rs.stream().mapToDouble(BusinessMetricRound::value).average().orElse(Double.NaN);
            double base = rs.stream().mapToDouble(BusinessMetricRound::expected).filter(Double::isFinite).average().orElse(Double.NaN);
            int breaches = (int) rs.stream().filter(r -> r.judgement().equals("breach")).count();
            out.add(new BusinessMetricStep(rs.getFirst().module(), rs.getFirst().name(), label.get(key), rs.size(), mean, base,
                    Double.isFinite(base) && base != 0 ? mean / base : Double.NaN, breaches));
        }
        return out;
    }

    /** The step a decider round's stored key {@code <stage>#<stepIndex>} names, when the run has it. */
    private static java.util.Optional<StepFigures> stored(List<StepFigures> steps, String key) {
        int hash = key.lastIndexOf('#');
        if (hash < 0) {
            return java.util.Optional.empty();
        }
        String stage = key.substring(0, hash);
        String index = key.substring(hash + 1);
        return steps.stream().filter(f -> f.stage().equals(stage) && String.valueOf(f.stepIndex()).equals(index)).findFirst();
    }
}
