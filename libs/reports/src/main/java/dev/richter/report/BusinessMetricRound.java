package dev.richter.report;

/**
 * One business metric of a module in one decision round, as the fault decider stored it (a verdict item's
 * {@code evidence.teamEvidence.metrics}, DESIGN.md §4 "The team's own evidence").
 *
 * @param module    the module it judges
 * @param name      the metric's registered name
 * @param atMs      epoch ms of the round
 * @param step      {@code <stage>#<stepIndex>} of the round, empty when not stored
 * @param value     the value read
 * @param expected  the baseline it was compared with (scaled by the rate when load-proportional), NaN when none
 * @param judgement {@code ok}, {@code breach}, {@code settling} or {@code no-baseline}
 */
public record BusinessMetricRound(String module, String name, long atMs, String step, double value, double expected,
                                  String judgement) {}
