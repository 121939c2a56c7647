package dev.richter.decider;

import java.util.List;
import java.util.Map;

/** Per-run decider state and the verdict log (verdicts table). */
public interface VerdictRepository {
    /** Module name to stored state for the run; empty for a new run. */
    Map<String, ModuleState> loadStates(String runId);

    /** Stores each module's next state and its verdict with evidence. */
    void save(String runId, List<ModuleDecision> decisions);
}
