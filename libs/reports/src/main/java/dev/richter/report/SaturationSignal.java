package dev.richter.report;

/**
 * One saturation signal the fault decider found past its threshold in one round (a verdict item's
 * {@code evidence.saturation}, rule {@code saturation}, DESIGN.md §4).
 *
 * @param module the module
 * @param atMs   epoch ms of the round
 * @param metric e.g. {@code hostCpuRatio}, {@code connectionsPending}, {@code gcTimeFraction}, {@code healthLatencyMs}
 * @param value  observed value, in the metric's unit
 * @param limit  the threshold it was past
 */
public record SaturationSignal(String module, long atMs, String metric, double value, double limit) {}
