package dev.richter.data.flow;

import dev.richter.common.model.Marker;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.function.LongSupplier;

/**
 * Flows and their runs for one caller's team: validate and store a flow, run it into a data set, read data sets.
 * Used by the plan API (runs of at most {@code 25 s}) and by the data-construction function's {@code run-flow} action
 * (runs up to the function's own timeout), so both produce the same rows, ledger and data set.
 */
public final class FlowService {
    /**
     * Most rows one data set may have: at about 200 bytes a row, 20 MB of JSON in 58 chunk items, which every worker
     * of a plan that draws from it reads whole (DESIGN.md "Plans use stored sets" says when S3 takes over).
     */
    public static final int MAX_ROWS = 100_000;
    /** Most rows one run may run at once (a bulkhead toward the service under test, DESIGN.md §6). */
    public static final int MAX_CONCURRENCY = 256;

    private final DataSetStore store;
    private final FlowRunner runner;
    private final LongSupplier clockMs;

    /**
     * @param store   where flows, ledgers and data sets live
     * @param runner  runs rows
     * @param clockMs epoch milliseconds (ids' creation times)
     */
    public FlowService(DataSetStore store, FlowRunner runner, LongSupplier clockMs) {
        this.store = store;
        this.runner = runner;
        this.clockMs = clockMs;
    }

    /**
     * Validates and stores a new flow under a new id {@code flow-<uuid>}; the body's {@code flowId}, {@code teamId}
     * and {@code createdAtMs} are ignored.
     *
     * @throws FlowValidator.InvalidFlowException with every problem; nothing is stored then
     */
    public Flow create(String teamId, Flow flow) {
        FlowValidator.validate(flow);
        Flow stored = flow.identified("flow-" + UUID.randomUUID(), teamId, clockMs.getAsLong());
        store.putFlow(stored);
        return stored;
    }

    /** The team's flow, or empty (another team's flow is absent too). */
    public Optional<Flow> get(String teamId, String flowId) {
        return store.getFlow(teamId, flowId);
    }

    /** The team's complete data set with its rows, or empty. */
    public Optional<DataSet> dataSet(String teamId, String dataSetId) {
        return store.get(teamId, dataSetId);
    }

    /**
     * Runs (or resumes) the team's flow into {@code dataSetId} ({@code ds-<uuid>} when null) and, when every row was
     * attempted, stores the data set (rows in order, failed ones with their error).
     *
     * @param deadlineMs epoch milliseconds after which no row starts
     * @return empty when the team has no such flow
     * @throws FlowValidator.InvalidFlowException for inputs that do not fit the flow, or a {@code dataSetId} that is
     *                                            not 1-100 of {@code [A-Za-z0-9_-]} ({@code $.dataSetId}), rows
     *                                            or concurrency out of range
     */
    public Optional<FlowRunner.Result> run(String teamId, String flowId, String dataSetId, FlowRunner.Request request,
                                           long deadlineMs) {
        return run(teamId, flowId, dataSetId, request, runner.marker(), deadlineMs);
    }

    /** {@link #run(String, String, String, FlowRunner.Request, long)} with the run's own marker on every call. */
    public Optional<FlowRunner.Result> run(String teamId, String flowId, String dataSetId, FlowRunner.Request request,
                                           Marker marker, long deadlineMs) {
        FlowRunner runner = this.runner.withMarker(marker);
        Optional<Flow> flow = store.getFlow(teamId, flowId);
        if (flow.isEmpty()) {
            return Optional.empty();
        }
        List<FlowValidator.FieldProblem> problems = new ArrayList<>();
        if (dataSetId != null && !dataSetId.matches("[A-Za-z0-9_-]{1,100}")) {
            problems.add(new FlowValidator.FieldProblem("$.dataSetId", "must be 1-100 characters of A-Z, a-z, 0-9, _ and -"));
        }
        if (request.rows() < 1 || request.rows() > MAX_ROWS) {
            problems.add(new FlowValidator.FieldProblem("$.rows", "must be 1.." + MAX_ROWS));
        }
        if (request.concurrency() < 1 || request.concurrency() > MAX_CONCURRENCY) {
            problems.add(new FlowValidator.FieldProblem("$.concurrency", "must be 1.." + MAX_CONCURRENCY));
        }
        if (!problems.isEmpty()) {
            throw new FlowValidator.InvalidFlowException(problems);
        }
        String id = dataSetId == null || dataSetId.isBlank() ? "ds-" + UUID.randomUUID() : dataSetId;
        FlowValidator.Checked checked = FlowValidator.validate(flow.get());
        FlowRunner.RunOutcome outcome = runner.run(checked, id, request, store.ledger(teamId, id), deadlineMs);
        if (outcome.result().complete()) {
            var r = outcome.result();
            store.put(new DataSet(id, teamId, flowId, clockMs.getAsLong(), flow.get().columns().keySet().stream().toList(),
                    runner.marker(), new DataSet.Counts(r.rows(), r.ok(), r.failed()), outcome.rows()));
        }
        return Optional.of(outcome.result());
    }
}
