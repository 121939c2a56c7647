package dev.richter.data;

import dev.richter.common.Repositories;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.data.flow.DataSetStore;
import dev.richter.data.flow.Expressions;
import dev.richter.data.flow.FlowRunner;
import dev.richter.data.flow.FlowService;
import dev.richter.data.flow.FlowValidator;
import java.net.http.HttpClient;
import java.time.Duration;

/**
 * Builds a data set from a stored flow inside one invocation ({@link FlowService#run}): calls go only under the base
 * URLs of the team's registered services, and rows start until {@link #FLOW_MARGIN_MS} before the invocation's own
 * timeout. When rows are still pending ({@code complete: false}) the caller calls again with the same
 * {@code dataSetId}. This is where large data sets are built (the plan API's synchronous run stops starting rows
 * after 18 s).
 */
public final class DataSetBuild {
    /**
     * Time kept back from the invocation's remaining time when a flow runs, milliseconds: rows stop starting this long
     * before the timeout, so their calls ({@link #FLOW_CALL_TIMEOUT_MS} each) end and the data set is stored in time.
     */
    public static final long FLOW_MARGIN_MS = 20_000;
    /** The longest one HTTP call of a flow may take, milliseconds. */
    public static final long FLOW_CALL_TIMEOUT_MS = 5_000;

    private final Repositories repositories;
    private final FlowService flows;

    /** Flows and data sets in the registry table of {@code repositories}, HTTP calls through a JDK client. */
    public DataSetBuild(Repositories repositories) {
        this.repositories = repositories;
        this.flows = new FlowService(new DataSetStore(repositories.dynamoDb(), repositories.tables().registry()),
                new FlowRunner(HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build(), Expressions.DEFAULT,
                        Marker.DEFAULT, Duration.ofMillis(FLOW_CALL_TIMEOUT_MS), System::currentTimeMillis),
                System::currentTimeMillis);
    }

    /**
     * Runs {@code request}'s flow.
     *
     * @param remainingMs the invocation's time left, milliseconds
     * @return the run's rows summary ({@link FlowRunner.Result})
     * @throws FlowValidator.InvalidFlowException for bad inputs
     * @throws IllegalArgumentException           for an unknown flow
     */
    public FlowRunner.Result run(DataConstructionRequest.RunFlowRequest request, long remainingMs) {
        String teamId = request.teamId();
        var calls = new FlowRunner.Request(request.rows(), request.concurrency(), request.inputs(),
                repositories.listServices(teamId).stream().map(RegisteredService::baseUrl).toList());
        long deadlineMs = System.currentTimeMillis() + Math.max(0, remainingMs - FLOW_MARGIN_MS);
        Marker marker = request.marker().signed(repositories.ensureMarkerKeys(teamId).get(0), teamId,
                "flow:" + request.flowId(), deadlineMs / 1000 + 60);
        return flows.run(teamId, request.flowId(), request.dataSetId(), calls, marker, deadlineMs)
                .orElseThrow(() -> new IllegalArgumentException("team " + teamId + " has no flow " + request.flowId()));
    }
}
