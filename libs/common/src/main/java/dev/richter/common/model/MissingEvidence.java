package dev.richter.common.model;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One monitoring defect of a module over a run: evidence the probes could not collect (DESIGN.md §4).
 * A WARN in the checks and the report, and a confidence deduction; never a vote against the module.
 *
 * @param module     module (service) name
 * @param defect     {@code <kind>: <detail>} as the fault decider stored it, naming the line or status,
 *                   e.g. {@code "prometheus: scrape answered HTTP 404"}
 * @param rounds     decision rounds of the module that had this defect
 * @param ofRounds   decision rounds of the module in the same period
 * @param firstAtMs  epoch ms of the first round with the defect
 * @param lastAtMs   epoch ms of the last round with the defect
 */
public record MissingEvidence(String module, String defect, int rounds, int ofRounds, long firstAtMs, long lastAtMs) {
    /** Verdicts-table attribute (L of S) holding a round's defects. */
    public static final String ATTRIBUTE = "missingEvidence";

    /**
     * One stored decision round of one module.
     *
     * @param module  module name
     * @param atMs    epoch ms of the decision
     * @param defects the round's defects, empty when it had none
     */
    public record DecisionRound(String module, long atMs, List<String> defects) {
        public DecisionRound {
            defects = defects == null ? List.of() : List.copyOf(defects);
        }
    }

    /**
     * Groups rounds into one entry per module and defect, ordered by module then first occurrence.
     *
     * @param rounds every stored decision round of the period (any order)
     * @return the defects with their round counts; empty when no round had one
     */
    public static List<MissingEvidence> summarise(List<DecisionRound> rounds) {
        Map<String, Integer> roundsPerModule = new LinkedHashMap<>();
        Map<List<String>, long[]> byDefect = new LinkedHashMap<>();
        for (DecisionRound r : rounds.stream().sorted(Comparator.comparingLong(DecisionRound::atMs)).toList()) {
            roundsPerModule.merge(r.module(), 1, Integer::sum);
            for (String d : r.defects().stream().distinct().toList()) {
                long[] acc = byDefect.computeIfAbsent(List.of(r.module(), d), k -> new long[] {0, r.atMs(), r.atMs()});
                acc[0]++;
                acc[2] = r.atMs();
            }
        }
        List<MissingEvidence> out = new ArrayList<>();
        byDefect.forEach((k, acc) -> out.add(new MissingEvidence(k.get(0), k.get(1), (int) acc[0],
                roundsPerModule.get(k.get(0)), acc[1], acc[2])));
        out.sort(Comparator.comparing(MissingEvidence::module).thenComparingLong(MissingEvidence::firstAtMs));
        return out;
    }

    /** e.g. {@code "prometheus: scrape answered HTTP 404 (in 12 of 12 rounds)"}. */
    public String describe() {
        return defect + " (in " + rounds + " of " + ofRounds + " rounds)";
    }
}
