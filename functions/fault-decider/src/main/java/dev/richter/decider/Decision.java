package dev.richter.decider;

import java.util.List;

/**
 * The outcome of one decision over all modules.
 *
 * @param modules     one entry per module decided, sorted by module name
 * @param abortReason why the abort policy fires, empty when it does not
 */
public record Decision(List<ModuleDecision> modules, String abortReason) {
    public Decision {
        modules = List.copyOf(modules);
        abortReason = abortReason == null ? "" : abortReason;
    }

    /** True when the abort policy fired this round. */
    public boolean abortRequested() {
        return !abortReason.isEmpty();
    }
}
