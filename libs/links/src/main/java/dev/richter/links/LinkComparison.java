package dev.richter.links;

import dev.richter.links.graph.Dimension;
import dev.richter.links.graph.Edge;
import java.util.List;

/**
 * The difference between two link sets of one dimension, e.g. real traffic ({@code teamA})
 * against load-test traffic ({@code teamA#marked}).
 *
 * @param dimension dimension compared
 * @param baselineTeamId the reference scope
 * @param candidateTeamId the scope compared against it
 * @param missingEdges in the baseline, not in the candidate (load test did not reach them)
 * @param extraEdges in the candidate, not in the baseline (load test went somewhere real traffic does not)
 * @param changedDepths nodes below a common entry whose shortest depth differs
 */
public record LinkComparison(Dimension dimension, String baselineTeamId, String candidateTeamId,
                             List<Edge> missingEdges, List<Edge> extraEdges, List<DepthChange> changedDepths) {

    /** True when the two link sets have the same edges and depths. */
    public boolean same() {
        return missingEdges.isEmpty() && extraEdges.isEmpty() && changedDepths.isEmpty();
    }

    /**
     * @param entry the common entry node
     * @param node the node below it
     * @param baselineDepth depth in the baseline
     * @param candidateDepth depth in the candidate
     */
    public record DepthChange(String entry, String node, int baselineDepth, int candidateDepth) {}
}
