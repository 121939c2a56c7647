package dev.richter.preparation;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import dev.richter.common.RunScoped;
import dev.richter.common.model.CaughtError;
import dev.richter.common.model.StepRef;

/**
 * The run-preparation function's event, one record per {@code action} (the field Jackson types it by); other fields
 * are ignored. The load-test-run state machine sends each (its {@code Prepare}, {@code StartStep} and
 * {@code MonitoringLost} states).
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "action")
@JsonSubTypes({
        @JsonSubTypes.Type(value = RunPreparationAction.Prepare.class, name = "prepare"),
        @JsonSubTypes.Type(value = RunPreparationAction.StartStep.class, name = "start-step"),
        @JsonSubTypes.Type(value = RunPreparationAction.MonitoringLost.class, name = "monitoring-lost")})
public sealed interface RunPreparationAction extends RunScoped {
    /** {@code prepare {runId}}: lays out the run's stages ({@link RunPreparer#prepare}). */
    record Prepare(String runId) implements RunPreparationAction {}

    /** {@code start-step {step}}: starts one step ({@link RunPreparer#startStep}). */
    record StartStep(StepRef step) implements RunPreparationAction {
        @Override
        public String runId() {
            return step == null ? null : step.runId();
        }

        @Override
        public String teamId() {
            return step == null ? null : step.teamId();
        }

        @Override
        public String stage() {
            return step == null ? null : step.stage();
        }

        @Override
        public Integer stepInStage() {
            return step == null ? null : step.stepIndex();
        }
    }

    /**
     * {@code monitoring-lost {runId, teamId, stage, stepIndex, state, error}}: a leg's monitor state failed
     * ({@link RunPreparer#monitoringLost}); both state machines send it.
     *
     * @param runId     the run
     * @param teamId    its team
     * @param stage     the step's stage ({@code nightly} in the nightly check)
     * @param stepIndex the step within the stage
     * @param state     the state that failed ({@code Probe}, {@code Decide})
     * @param error     what its {@code Catch} handed over, {@code {Error, Cause}}; may be null
     */
    record MonitoringLost(String runId, String teamId, String stage, Integer stepIndex, String state, CaughtError error)
            implements RunPreparationAction {
        @Override
        public Integer stepInStage() {
            return stepIndex;
        }
    }
}
