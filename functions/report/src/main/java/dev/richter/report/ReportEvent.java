package dev.richter.report;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import dev.richter.common.RunScoped;

/**
 * The report function's event: the state machine's {@code {action: "report", runId, state}} or
 * {@code {action: "step-completed", runId, teamId, stage, stepIndex}}, or, with no
 * {@code action}, EventBridge's {@code Step Functions Execution Status Change} event (the template's
 * {@code ExecutionEndedRule}). Jackson types it by {@code action}; an event without one is a status change. Other
 * fields are ignored.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, include = JsonTypeInfo.As.EXISTING_PROPERTY, property = "action",
        visible = true, defaultImpl = ReportEvent.ExecutionStatusChange.class)
@JsonSubTypes({@JsonSubTypes.Type(value = ReportEvent.ReportRequest.class, name = "report"),
        @JsonSubTypes.Type(value = ReportEvent.StepCompletedRequest.class, name = "step-completed")})
public sealed interface ReportEvent extends RunScoped {
    /**
     * {@code report}: the run's report ({@link RunReporter#report}).
     *
     * @param runId the run
     * @param state the execution's state at the {@code Report} state; its {@code error}, when present, is the caught
     *              failure ({@code {Error, Cause}})
     */
    record ReportRequest(String runId, JsonNode state) implements ReportEvent {
        /** The caught failure, or a missing node when the run reached its report without one. */
        public JsonNode error() {
            return state == null ? MissingNode.getInstance() : state.path("error");
        }
    }

    /**
     * {@code step-completed}: a step's legs all ended ({@link StepCompletion#complete}).
     *
     * @param runId     the run
     * @param teamId    its team
     * @param stage     {@code warm-up}, {@code pre-test} or {@code formal}
     * @param stepIndex the step within the stage
     */
    record StepCompletedRequest(String action, String runId, String teamId, String stage, Integer stepIndex)
            implements ReportEvent {
        @Override
        public Integer stepInStage() {
            return stepIndex;
        }
    }

    /**
     * An execution's status change ({@link RunReaper}).
     *
     * @param action     the event's action: null for EventBridge's event; any other value is an action this function
     *                   does not know
     * @param detailType EventBridge's {@code detail-type}; {@value RunReaper#DETAIL_TYPE}
     * @param detail     the execution's {@code {name, status, cause, ...}}
     */
    record ExecutionStatusChange(String action, @JsonProperty("detail-type") String detailType, JsonNode detail)
            implements ReportEvent {
        public ExecutionStatusChange {
            detail = detail == null ? MissingNode.getInstance() : detail;
        }

        /**
         * This event, when it is a status change.
         *
         * @throws IllegalArgumentException naming the action for an unknown action, or the detail-type for an event
         *                                  without one that is not a status change
         */
        public ExecutionStatusChange checked() {
            if (action != null) {
                throw new IllegalArgumentException("unknown action '" + action + "'; expected one of report, step-completed");
            }
            if (!RunReaper.DETAIL_TYPE.equals(detailType)) {
                throw new IllegalArgumentException("missing action, and detail-type '" + detailType + "' is not '"
                        + RunReaper.DETAIL_TYPE + "'");
            }
            return this;
        }
    }
}
