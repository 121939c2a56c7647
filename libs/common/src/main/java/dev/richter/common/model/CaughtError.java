package dev.richter.common.model;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * The error output of a Step Functions {@code Catch} ({@code ResultPath} of the caught state), as a task's input
 * carries it on (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 *
 * @param error the error name ({@code States.Timeout}, a function's {@code errorType}), may be null
 * @param cause its cause (for a function error the JSON of {@code {errorType, errorMessage}}), may be null; see
 *              {@code TaskErrors}
 */
public record CaughtError(@JsonProperty("Error") String error, @JsonProperty("Cause") String cause) {}
