package dev.richter.common.model;

import java.util.List;

/**
 * The result of one safety check (DESIGN.md §2 "check").
 *
 * @param name     check name, e.g. {@code target-answers}, {@code marker-sent}
 * @param outcome  PASS, WARN or FAIL
 * @param subject  what was checked, e.g. a service name or a step
 * @param evidence why: figures, trace ids, the first failing item
 */
public record CheckResult(String name, Outcome outcome, String subject, String evidence) {
    /** Check outcomes, ordered from best to worst. */
    public enum Outcome { PASS, WARN, FAIL }

    /** The worst outcome of {@code results} (PASS when empty). */
    public static Outcome worst(List<CheckResult> results) {
        return results.stream().map(CheckResult::outcome).max(Enum::compareTo).orElse(Outcome.PASS);
    }
}
