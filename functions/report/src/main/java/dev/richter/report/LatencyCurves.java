package dev.richter.report;

import dev.richter.common.model.HistogramCodec;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;

/**
 * The latency distribution of every step as an HDR percentile curve (latency against percentile on a log scale of
 * {@code 1 / (1 - p)}, as HdrHistogram's own plots draw it), steps overlaid, read from each step's merged histogram
 * ({@link StepFigures#mergedHistogram()}, latency from the intended time).
 *
 * <p>All curves share one percentile grid, {@code p_k = 100 (1 - 10^(-k/10))} for k = 0..{@link #GRID_POINTS}-1
 * (0 %, 20.6 %, 36.9 %, ..., 99.999 %). A step's curve stops (null) where the percentile needs more samples than it has
 * ({@code 1 / (1 - p)} above its count): the tail beyond is not measured.
 *
 * @param percentiles the grid, percent
 * @param curves      one per step that recorded latency, pre-test first
 */
public record LatencyCurves(List<Double> percentiles, List<Curve> curves) {
    /** Points of the shared grid: 10 per decade, up to 99.999 %. */
    public static final int GRID_POINTS = 51;
    /** No curve. */
    public static final LatencyCurves EMPTY = new LatencyCurves(List.of(), List.of());

    /**
     * @param label     {@code pre-test} or {@code step <n> · <qps> QPS} (steps from 1)
     * @param stage     stage
     * @param stepIndex step within the stage, 0-based
     * @param samples   latencies recorded
     * @param valuesMs  latency at each grid percentile, milliseconds ({@code null} beyond the samples' resolution)
     */
    public record Curve(String label, String stage, int stepIndex, long samples, List<Double> valuesMs) {}

    /** The curves of {@code steps}; steps without a recorded latency are left out. */
    public static LatencyCurves of(List<StepFigures> steps) {
        List<Double> grid = new ArrayList<>();
        for (int k = 0; k < GRID_POINTS; k++) {
            grid.add(100 * (1 - Math.pow(10, -k / 10.0)));
        }
        List<Curve> curves = new ArrayList<>();
        for (StepFigures f : steps) {
            if (f.mergedHistogram() == null || f.mergedHistogram().isEmpty()) {
                continue;
            }
            Histogram h = HistogramCodec.decode(f.mergedHistogram());
            long n = h.getTotalCount();
            if (n == 0) {
                continue;
            }
            List<Double> values = new ArrayList<>();
            for (int k = 0; k < GRID_POINTS; k++) {
                values.add(Math.pow(10, k / 10.0) > n * 1.0000001 ? null : h.getValueAtPercentile(grid.get(k)) / 1000.0);
            }
            curves.add(new Curve(StepLabels.label(f), f.stage(), f.stepIndex(), n, values));
        }
        return curves.isEmpty() ? EMPTY : new LatencyCurves(grid, curves);
    }
}
