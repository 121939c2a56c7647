package dev.richter.api;

import dev.richter.data.flow.FlowService;

/** {@code /data-sets}: the data sets flow runs built (DESIGN.md, "Logic units, flows and data sets"). */
final class DataSetResource {
    private final FlowService flows;

    DataSetResource(FlowService flows) {
        this.flows = flows;
    }

    /** {@code GET /data-sets/{dataSetId}}: the team's complete data set with its rows; absent or half-written is a 404. */
    ApiResponse get(ApiRequest req) {
        String dataSetId = req.path("dataSetId");
        return ApiResponse.json(200, flows.dataSet(req.teamId(), dataSetId)
                .orElseThrow(() -> ApiException.notFound("data set", dataSetId)));
    }
}
