package dev.richter.data.flow;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.model.Marker;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Rows produced by running a flow ({@code DataSet} in openapi.json), stored complete or absent by {@link DataSetStore}.
 *
 * @param dataSetId   {@code ds-...}, or the id the caller chose
 * @param teamId      the owning team
 * @param flowId      the flow that produced it
 * @param createdAtMs when it was completed, epoch milliseconds
 * @param columns     the column names, in the flow's order
 * @param marker      the load-test marker every HTTP call of the run carried
 * @param counts      rows in the set, succeeded, failed
 * @param rows        every row in row order (empty in a summary)
 */
public record DataSet(String dataSetId, String teamId, String flowId, long createdAtMs, List<String> columns,
                      Marker marker, Counts counts, List<Row> rows) {
    public DataSet {
        columns = List.copyOf(columns);
        rows = rows == null ? List.of() : List.copyOf(rows);
    }

    /** This set without its rows: what a manifest holds. */
    public DataSet summary() {
        return new DataSet(dataSetId, teamId, flowId, createdAtMs, columns, marker, counts, List.of());
    }

    /**
     * @param rows   rows in the set
     * @param ok     rows whose every unit succeeded
     * @param failed rows kept with their error
     */
    public record Counts(int rows, int ok, int failed) {}

    /**
     * One row.
     *
     * @param row            index from 0
     * @param idempotencyKey {@code <dataSetId>#<row>}; each HTTP call of the row sends {@code Idempotency-Key:
     *                       <dataSetId>#<row>#<unitId>}
     * @param status         {@code ok} or {@code failed}
     * @param marked         true when every HTTP call of the row carried the marker (always, for rows this code made)
     * @param values         column → value ({@code ok} rows)
     * @param error          what failed, naming the unit ({@code failed} rows), else null
     * @param attempts       how many runs tried this row
     * @param completedAtMs  when the last attempt ended, epoch milliseconds
     */
    public record Row(int row, String idempotencyKey, String status, boolean marked, Map<String, JsonNode> values,
                      String error, int attempts, long completedAtMs) {
        public Row {
            values = values == null ? Map.of() : new LinkedHashMap<>(values);
        }

        /** Whether every unit of the row succeeded. */
        public boolean ok() {
            return "ok".equals(status);
        }
    }
}
