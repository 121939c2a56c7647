package dev.richter.data;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.RunScoped;
import dev.richter.common.model.Marker;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The data-construction function's event, one record per {@code action} (the field Jackson types it by); other
 * fields are ignored. Example: {@code events/data-construction/run-flow.json}.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "action")
@JsonSubTypes({@JsonSubTypes.Type(value = DataConstructionRequest.RunFlowRequest.class, name = "run-flow")})
public sealed interface DataConstructionRequest extends RunScoped {
    /**
     * {@code run-flow}: runs (or resumes) a stored flow into a data set ({@link DataSetBuild}).
     *
     * @param teamId      the flow's team ("" when absent)
     * @param flowId      the stored flow ("" when absent)
     * @param rows        how many rows the data set has (0 when absent)
     * @param concurrency rows run at once; 8 when absent
     * @param dataSetId   the data set to write or resume; null: a new one
     * @param inputs      the flow's inputs by name; none when absent
     * @param marker      the load-test marker the calls carry; {@link Marker#DEFAULT} when absent
     */
    record RunFlowRequest(String teamId, String flowId, int rows, Integer concurrency, String dataSetId,
                          Map<String, JsonNode> inputs, Marker marker) implements DataConstructionRequest {
        public RunFlowRequest {
            teamId = teamId == null ? "" : teamId;
            flowId = flowId == null ? "" : flowId;
            concurrency = concurrency == null ? 8 : concurrency;
            inputs = inputs == null ? Map.of() : new LinkedHashMap<>(inputs);
            marker = marker == null ? Marker.DEFAULT : marker;
        }
    }
}
