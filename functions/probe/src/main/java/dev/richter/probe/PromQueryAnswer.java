package dev.richter.probe;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;

/**
 * Reads one number from a Prometheus HTTP API query answer ({@code GET /api/v1/query}; the format of
 * prometheus.io/docs/prometheus/latest/querying/api/#expression-query-result-formats):
 * {@code {"status":"success","data":{"resultType":..., "result":...}}}. A business metric's query must answer one
 * number: a {@code vector} of exactly one series (its {@code value}), a {@code scalar}, or a {@code matrix} of one
 * series (its newest point). Sample values are strings ({@code "12.5"}, {@code "NaN"}, {@code "+Inf"}).
 */
public final class PromQueryAnswer {
    private PromQueryAnswer() {}

    /**
     * The one number of the answer.
     *
     * @param body the response body
     * @return a finite number
     * @throws EvidenceAnswerException naming what is wrong: malformed JSON, {@code status} {@code error} (with
     *                                 {@code errorType} and {@code error}), no series, several series, a
     *                                 {@code string} result, a value that is not a finite number (NaN, ±Inf)
     */
    public static double value(String body) {
        JsonNode root;
        try {
            root = Json.MAPPER.readTree(body);
        } catch (Exception e) {
            throw new EvidenceAnswerException("answer is not JSON: " + firstLine(e.getMessage()));
        }
        if (root == null || !root.isObject()) {
            throw new EvidenceAnswerException("answer is not a JSON object");
        }
        String status = root.path("status").asText("");
        if (status.equals("error")) {
            throw new EvidenceAnswerException("query failed: " + root.path("errorType").asText("error") + ": "
                    + root.path("error").asText(""));
        }
        if (!status.equals("success")) {
            throw new EvidenceAnswerException("$.status is '" + status + "', not 'success'");
        }
        JsonNode data = root.path("data");
        String type = data.path("resultType").asText("");
        JsonNode result = data.path("result");
        return switch (type) {
            case "scalar" -> sample(result, "$.data.result");
            case "vector" -> sample(oneSeries(result).path("value"), "$.data.result[0].value");
            case "matrix" -> {
                JsonNode values = oneSeries(result).path("values");
                if (!values.isArray() || values.isEmpty()) {
                    throw new EvidenceAnswerException("$.data.result[0].values: no points");
                }
                yield sample(values.get(values.size() - 1), "$.data.result[0].values[" + (values.size() - 1) + "]");
            }
            case "string" -> throw new EvidenceAnswerException("the query answers a string, not a number");
            default -> throw new EvidenceAnswerException("$.data.resultType '" + type + "' is none of vector, matrix, scalar");
        };
    }

    private static JsonNode oneSeries(JsonNode result) {
        if (!result.isArray()) {
            throw new EvidenceAnswerException("$.data.result is not a list");
        }
        if (result.isEmpty()) {
            throw new EvidenceAnswerException("no series: the query matched nothing");
        }
        if (result.size() > 1) {
            throw new EvidenceAnswerException(result.size() + " series: aggregate the query to one (e.g. sum(...))");
        }
        return result.get(0);
    }

    /** A {@code [<unix seconds>, "<value>"]} pair's finite value. */
    private static double sample(JsonNode pair, String path) {
        if (!pair.isArray() || pair.size() != 2 || !pair.get(1).isTextual()) {
            throw new EvidenceAnswerException(path + " is not a [time, \"value\"] pair");
        }
        String text = pair.get(1).asText();
        double v;
        try {
            // Prometheus writes the special values as Go's strconv does: NaN, +Inf, -Inf
            v = switch (text) {
                case "+Inf", "Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(text);
            };
        } catch (NumberFormatException e) {
            throw new EvidenceAnswerException(path + ": '" + text + "' is not a number");
        }
        if (!Double.isFinite(v)) {
            throw new EvidenceAnswerException(path + ": value is " + text + ", not a finite number");
        }
        return v;
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }
}
