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

    /** A nightly action on one scope: one element of {@code nightly-scopes}' answer, as the state machine hands it back. */
    sealed interface NightlyAction extends ChecksAction permits NightlyStatic, NightlyDynamic, NightlyCompare, NightlyFailed {
        /** The scope as sent, or null when the event had none. */
        JsonNode scope();

        /** The scope, or a missing node when the event had none (so {@code path} reads stay safe). */
        default JsonNode scopeNode() {
            return scope() == null ? MissingNode.getInstance() : scope();
        }
    }

    /** {@code nightly-static {scope}}: a scope's static checks ({@link NightlyCheck#staticChecks}). */
    record NightlyStatic(JsonNode scope) implements NightlyAction {}

    /** {@code nightly-dynamic {scope}}: a scope's checks on its replay ({@link NightlyCheck#dynamicChecks}). */
    record NightlyDynamic(JsonNode scope) implements NightlyAction {}

    /** {@code nightly-compare {scope}}: tonight against the previous night ({@link NightlyCheck#compare}). */
    record NightlyCompare(JsonNode scope) implements NightlyAction {}

    /** {@code nightly-failed {scope}}: a scope whose state failed ({@link NightlyCheck#failed}). */
    record NightlyFailed(JsonNode scope) implements NightlyAction {}
}
