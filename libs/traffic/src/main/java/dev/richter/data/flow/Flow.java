package dev.richter.data.flow;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * An ordered graph of logic units whose slots are wired by name ({@code Flow} in openapi.json). Validated by
 * {@link FlowValidator} before it is stored or run; run by {@link FlowRunner} into a data set.
 *
 * <p>A <b>source</b> names where a value comes from: {@code <unitId>.<output>} (an earlier unit's output),
 * {@code input.<name>} (a flow input, given when the flow is run), or a generator: {@code gen.row} (the row index,
 * number, from 0), {@code gen.uuid} (a random UUID, string), {@code gen.timestampMs} (epoch milliseconds when the row
 * started, number).
 *
 * @param flowId      {@code flow-...}; empty before it is stored
 * @param teamId      the owning team; empty before it is stored
 * @param name        what the flow builds, e.g. {@code shadow buyers}
 * @param inputs      flow input name → slot type; their values are given per run
 * @param units       the steps; run in dependency order (list order among independent steps)
 * @param columns     data-set column → source; a row of the data set holds these
 * @param createdAtMs when it was stored, epoch milliseconds
 */
public record Flow(String flowId, String teamId, String name, Map<String, String> inputs, List<Step> units,
                   Map<String, String> columns, long createdAtMs) {
    public Flow {
        flowId = flowId == null ? "" : flowId;
        teamId = teamId == null ? "" : teamId;
        inputs = inputs == null ? Map.of() : new LinkedHashMap<>(inputs);
        units = units == null ? List.of() : List.copyOf(units);
        columns = columns == null ? Map.of() : new LinkedHashMap<>(columns);
    }

    /** This flow under an id and team, stored at {@code createdAtMs}. */
    public Flow identified(String flowId, String teamId, long createdAtMs) {
        return new Flow(flowId, teamId, name, inputs, units, columns, createdAtMs);
    }

    /**
     * One unit in the flow.
     *
     * @param id     unique in the flow ({@code [A-Za-z][A-Za-z0-9_]*}, not {@code input} or {@code gen}); outputs are
     *               referred to as {@code <id>.<output>}
     * @param unit   the logic unit
     * @param inputs the unit's input slot → source; every input slot is wired
     */
    public record Step(String id, LogicUnit unit, Map<String, String> inputs) {
        public Step {
            inputs = inputs == null ? Map.of() : new LinkedHashMap<>(inputs);
        }
    }
}
