package dev.richter.decider;

/** Where a team's {@link DecisionRules} live; read on every decision so a change applies to the next one. */
public interface DecisionRulesRepository {
    /** The team's rules, or {@link DecisionRules#defaults()} when it stored none. */
    DecisionRules load(String teamId);
}
