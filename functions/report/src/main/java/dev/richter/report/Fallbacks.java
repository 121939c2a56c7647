package dev.richter.report;

import dev.richter.common.model.Counters;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Answers a circuit breaker's fallback gave during a step, from the breakers' own counters: the increase of each
 * breaker's not-permitted calls ({@link BreakerCount}) from the last reading at or before the step's start to the last
 * at or before its end (a counter that fell, its JVM restarted, counts from 0). A request crosses several breakers at
 * most once each, so the step's fallbacks are the largest increase of any one breaker: a lower bound on the requests
 * a fallback answered.
 *
 * <p>Those beyond the step's answers already counted as errors (HTTP errors and check failures: a fallback without a
 * good answer to give fails already, or a plan's check caught it) are taken out of the step's ok answers
 * ({@link StepFigures#withFallbacks}), at most all of them, and so count in its success rate and the capacity criteria.
 * A breaker counts every caller of its JVM, so on a service that also takes production traffic the figure can include
 * production calls; the trace evidence ({@link VanishedEdges}) is the run's own. A breaker forced open
 * ({@code transitionToForcedOpenState}) counts no not-permitted call: only the traces show its fallbacks.
 */
public final class Fallbacks {
    private Fallbacks() {}

    /**
     * A step's fallbacks by breaker.
     *
     * @param step    the step whose window counts
     * @param byRound the run's breaker readings
     * @return {@code <module>/<breaker>} → calls not permitted during the step, those above 0, largest first
     */
    public static Map<String, Long> of(StepFigures step, List<BreakerCount> byRound) {
        Map<String, List<BreakerCount>> series = new LinkedHashMap<>();
        for (BreakerCount c : byRound) {
            series.computeIfAbsent(c.module() + "/" + c.breaker(), k -> new ArrayList<>()).add(c);
        }
        Map<String, Long> out = new LinkedHashMap<>();
        series.forEach((key, readings) -> {
            readings.sort(Comparator.comparingLong(BreakerCount::atMs));
            Double start = null;
            Double end = null;
            for (BreakerCount r : readings) {
                if (r.atMs() <= step.startedAtMs()) {
                    start = r.notPermitted();
                } else if (r.atMs() <= step.endedAtMs()) {
                    if (start == null) {
                        start = r.notPermitted();
                    }
                    end = r.notPermitted();
                }
            }
            if (start != null && end != null) {
                long increase = Math.round(end >= start ? end - start : end);
                if (increase > 0) {
                    out.put(key, increase);
                }
            }
        });
        List<Map.Entry<String, Long>> sorted = new ArrayList<>(out.entrySet());
        sorted.sort(Map.Entry.<String, Long>comparingByValue().reversed());
        Map<String, Long> ordered = new LinkedHashMap<>();
        sorted.forEach(e -> ordered.put(e.getKey(), e.getValue()));
        return ordered;
    }

    /**
     * The steps with their fallbacks beyond the answers already counted as errors taken out of their ok answers.
     *
     * @return the same steps, in order, each adjusted or as it was
     */
    public static List<StepFigures> counted(List<StepFigures> steps, List<BreakerCount> byRound) {
        if (byRound.isEmpty()) {
            return steps;
        }
        List<StepFigures> out = new ArrayList<>();
        for (StepFigures f : steps) {
            long fallbacks = of(f, byRound).values().stream().mapToLong(Long::longValue).max().orElse(0);
            Counters c = f.counters();
            long counted = c.httpErrors().values().stream().mapToLong(Long::longValue).sum() + c.checkFailed();
            out.add(fallbacks > counted ? f.withFallbacks(fallbacks - counted) : f);
        }
        return out;
    }
}
