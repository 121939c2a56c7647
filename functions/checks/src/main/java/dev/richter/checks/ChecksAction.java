package dev.richter.checks;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.richter.common.RunScoped;

/**
 * The checks function's event, one record per {@code action} (the field Jackson types it by). The state machines send
 * exactly these fields: {@code load-test-run}'s {@code StaticChecks} and {@code DynamicChecks} states, and
 * {@code nightly-check}'s {@code ListScopes}, {@code StaticChecks}, {@code DynamicChecks},
 * {@code CompareWithPreviousNight} and {@code ScopeFailed}. Other fields are ignored.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "action")
@JsonSubTypes({
        @JsonSubTypes.Type(value = ChecksAction.StaticGate.class, name = "static"),
        @JsonSubTypes.Type(value = ChecksAction.DynamicGate.class, name = "dynamic"),
        @JsonSubTypes.Type(value = ChecksAction.NightlyScopes.class, name = "nightly-scopes"),
        @JsonSubTypes.Type(value = ChecksAction.NightlyStatic.class, name = "nightly-static"),
        @JsonSubTypes.Type(value = ChecksAction.NightlyDynamic.class, name = "nightly-dynamic"),
        @JsonSubTypes.Type(value = ChecksAction.NightlyCompare.class, name = "nightly-compare"),
        @JsonSubTypes.Type(value = ChecksAction.NightlyFailed.class, name = "nightly-failed")})
public sealed interface ChecksAction extends RunScoped {
    /** {@code node}, or a missing node when the event had none (so {@code path} reads stay safe). */
    private static JsonNode orMissing(JsonNode node) {
        return node == null ? MissingNode.getInstance() : node;
    }

    /** {@code static {runId}}: the run's static gate ({@link RunGate#staticChecks}). */
    record StaticGate(String runId) implements ChecksAction {}

    /**
     * {@code dynamic {runId, stage}}: the gate on a stage's results ({@link RunGate#dynamicChecks}).
     *
     * @param stage the stage whose results are checked; {@code pre-test} when absent
     */
    record DynamicGate(String runId, String stage) implements ChecksAction {
        public DynamicGate {
            stage = stage == null ? "pre-test" : stage;
        }
    }

    /** {@code nightly-scopes {}}: the scopes of tonight's check ({@link NightlyCheck#scopes}). */
    record NightlyScopes() implements ChecksAction {}

    /**
     * {@code nightly-static {scope}}: a scope's static checks ({@link NightlyCheck#staticChecks}).
     *
     * @param scope one element of {@code nightly-scopes}' answer, as the state machine hands it back
     */
    record NightlyStatic(JsonNode scope) implements ChecksAction {
        public NightlyStatic {
            scope = orMissing(scope);
        }
    }

    /** {@code nightly-dynamic {scope}}: a scope's checks on its replay ({@link NightlyCheck#dynamicChecks}). */
    record NightlyDynamic(JsonNode scope) implements ChecksAction {
        public NightlyDynamic {
            scope = orMissing(scope);
        }
    }

    /** {@code nightly-compare {scope}}: tonight against the previous night ({@link NightlyCheck#compare}). */
    record NightlyCompare(JsonNode scope) implements ChecksAction {
        public NightlyCompare {
            scope = orMissing(scope);
        }
    }

    /** {@code nightly-failed {scope}}: a scope whose state failed ({@link NightlyCheck#failed}). */
    record NightlyFailed(JsonNode scope) implements ChecksAction {
        public NightlyFailed {
            scope = orMissing(scope);
        }
    }
}
