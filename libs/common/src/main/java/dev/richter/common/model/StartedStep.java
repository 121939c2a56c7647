package dev.richter.common.model;

import java.util.List;
import java.util.Map;

/**
 * A started step as the state machine carries it: small and independent of the traffic's size.
 *
 * @param skip          true when the run's abort flag is set: the step is not run
 * @param stepStartMs   epoch ms when the step's first request is due
 * @param stepEndsAtMs  epoch ms when the step's last request is due at the latest
 * @param workerCount   load-driver workers in every leg
 * @param legMs         length of every leg but the last, milliseconds
 * @param workerIndexes {@code [0, workerCount)}: the items of each leg's worker Map
 * @param legs          the legs: the items of the step's leg Map
 * @param probeTargets  probe targets (shape of the probe function's {@code targets})
 * @param coreModules   modules whose DAMAGED verdict aborts the run
 * @param abortPolicy   the plan's abort policy in the fault decider's shape:
 *                      {@code {conditions: [{type: anyDamagedCoreModule} | {type: errorRateOver, errorRate: 0..1, forSeconds}]}}
 */
public record StartedStep(String runId, String teamId, String stage, int stepIndex, double qps, int durationS,
                          boolean skip, long stepStartMs, long stepEndsAtMs, int workerCount, long legMs,
                          List<Integer> workerIndexes, List<LegItem> legs,
                          List<Map<String, Object>> probeTargets, List<String> coreModules,
                          Map<String, Object> abortPolicy) {}
