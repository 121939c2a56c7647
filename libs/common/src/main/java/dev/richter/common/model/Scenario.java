package dev.richter.common.model;

import java.util.List;

/**
 * A scenario: a traffic set replayed against one registered service with a share of the plan's QPS.
 *
 * @param name          scenario name, unique in its plan
 * @param service       registered service name the traffic targets
 * @param targetBaseUrl the service's base URL, e.g. {@code http://127.0.0.1:18081}
 * @param weight        share of the plan's QPS (weights are normalized over the plan's scenarios)
 * @param requests      the traffic set, replayed round-robin; paths, header values and text bodies may hold the
 *                      placeholders of {@link Plan.ScenarioSpec} ({@code {{data.<id>.<column>}}}, {@code {{gen.*}}})
 * @param data          the rows this worker may use of each bound data set (already partitioned for it when the
 *                      mode is {@code unique}); empty when the scenario draws no data
 */
public record Scenario(String name, String service, String targetBaseUrl, double weight, List<ReplayRequest> requests,
                       List<DataRows> data) {
    public Scenario {
        requests = requests == null ? List.of() : List.copyOf(requests);
        data = data == null ? List.of() : List.copyOf(data);
    }

    /** A scenario without data sets. */
    public Scenario(String name, String service, String targetBaseUrl, double weight, List<ReplayRequest> requests) {
        this(name, service, targetBaseUrl, weight, requests, List.of());
    }

    /**
     * Rows of one data set, as text.
     *
     * @param dataSetId the data set
     * @param mode      {@code unique}, {@code sequential} or {@code random} ({@link Plan.DataBinding})
     * @param columns   column names
     * @param rows      rows in order, each one value per column (a string as is, any other JSON value as its JSON)
     */
    public record DataRows(String dataSetId, String mode, List<String> columns, List<List<String>> rows) {
        public DataRows {
            columns = List.copyOf(columns);
            rows = List.copyOf(rows);
        }
    }
}
