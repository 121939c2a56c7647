package dev.richter.common.model;

import java.util.List;
import java.util.Optional;

/**
 * Where workers load the stored sets their scenarios name: {@code dev.richter.data.StoredSets} reads them from the
 * registry table (libs/traffic); {@link #NONE} serves plans of inline requests only.
 */
public interface SetSource {
    /** A source that has no sets (plans of inline requests only). */
    SetSource NONE = new SetSource() {
        @Override
        public Optional<List<ReplayRequest>> trafficSet(String teamId, String setId) {
            return Optional.empty();
        }

        @Override
        public Optional<DataSetRows> dataSet(String teamId, String dataSetId) {
            return Optional.empty();
        }
    };

    /** The team's traffic set as a scenario's request list, or empty when it is not stored. */
    Optional<List<ReplayRequest>> trafficSet(String teamId, String setId);

    /** The team's data set's {@code ok} rows, or empty when it is not stored. */
    Optional<DataSetRows> dataSet(String teamId, String dataSetId);
}
