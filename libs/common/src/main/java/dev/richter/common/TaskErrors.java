package dev.richter.common;

/**
 * Reading the errors Step Functions hands a {@code Catch} or an EventBridge status-change event: {@code Error} (a name
 * such as {@code States.Timeout} or a function's {@code errorType}) and {@code Cause} (for a Lambda function error,
 * the JSON text of {@code {errorType, errorMessage, stackTrace}}; otherwise plain text)
 * (https://docs.aws.amazon.com/step-functions/latest/dg/concepts-error-handling.html).
 */
public final class TaskErrors {
    /** How much of a cause's message a reason quotes, characters; a longer one is cut and ends with {@code …}. */
    public static final int MAX_CAUSE_CHARS = 200;

    private TaskErrors() {
    }

    /**
     * The cause as a reason quotes it: {@code " (<message>)"} with {@link #causeMessage} cut to
     * {@link #MAX_CAUSE_CHARS}, or "" when the cause has no message.
     */
    public static String causeSuffix(String cause) {
        String message = causeMessage(cause).strip();
        if (message.isEmpty()) {
            return "";
        }
        return " (" + (message.length() > MAX_CAUSE_CHARS ? message.substring(0, MAX_CAUSE_CHARS) + "…" : message) + ")";
    }

    /**
     * The cause's {@code errorMessage} when it is a function error's JSON, its {@code message} when it is a Lambda API
     * error's JSON (e.g. a throttle: {@code {"Type":"User","message":"Rate Exceeded.","Reason":"..."}}, with the
     * {@code Reason} after it), else the cause as it is; "" for null.
     */
    public static String causeMessage(String cause) {
        if (cause == null) {
            return "";
        }
        try {
            var parsed = Json.MAPPER.readTree(cause);
            if (parsed != null && parsed.has("errorMessage")) {
                return parsed.get("errorMessage").asText();
            }
            if (parsed != null && parsed.has("message")) {
                return parsed.get("message").asText() + (parsed.has("Reason") ? " " + parsed.get("Reason").asText() : "");
            }
        } catch (Exception notJson) {
            // plain text
        }
        return cause.strip();
    }
}
