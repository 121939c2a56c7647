package dev.richter.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.JsonSchema;
import dev.richter.common.Json;
import dev.richter.common.JsonSyntax;
import dev.richter.runs.ContractSchemas;
import dev.richter.runs.InputProblem;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.Map;

/**
 * Parses request bodies and validates them against the component schemas of the API's OpenAPI 3.1 document
 * ({@link ContractSchemas}). Every problem is reported with its JSON path (e.g. {@code $.preTest.qps}) and the
 * reason; nothing is stored when any is found.
 */
public final class InputValidator {
    private static final ObjectReader READER = Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private final ContractSchemas schemas;

    /** Validates against its own {@link ContractSchemas}. */
    public InputValidator() {
        this(new ContractSchemas());
    }

    /** Validates against {@code schemas} (shared with the plan checks, so each schema loads once). */
    public InputValidator(ContractSchemas schemas) {
        this.schemas = schemas;
    }

    /**
     * The component schema {@code name} of {@code openapi.json} (loaded once, then cached).
     *
     * @throws IllegalArgumentException when the document has no such component
     */
    JsonSchema schema(String name) {
        return schemas.schema(name);
    }

    /**
     * Parses {@code body} and validates it against component schema {@code name} ({@code PlanInput},
     * {@code ServiceInput}, {@code SafetyConfig}; also by their former names {@code plan}, {@code service},
     * {@code safety}).
     *
     * @return the parsed document
     * @throws ApiException 400 {@code InvalidJson} ({@code body: not valid JSON at line L, column C (what)}) for a body
     *                      that is not one JSON value, 400 {@code ValidationFailed} with every {@code {path, reason}}
     */
    public JsonNode parse(String name, byte[] body) {
        return parse(name, body, doc -> List.of());
    }

    /**
     * As {@link #parse(String, byte[])}, with the problems of {@code checks} (rules a JSON Schema cannot state well,
     * run on the same document) reported with the schema's, in one answer.
     *
     * @param checks the further problems of a parsed document; it must accept any JSON value
     */
    public JsonNode parse(String name, byte[] body, Function<JsonNode, List<InputProblem>> checks) {
        JsonNode doc = parseJson(body);
        List<InputProblem> problems = new ArrayList<>(schemas.problems(name, doc));
        problems.addAll(checks.apply(doc));
        if (!problems.isEmpty()) {
            throw ApiException.validationFailed(problems);
        }
        return doc;
    }

    /**
     * One JSON value from {@code body} (UTF-8).
     *
     * @throws ApiException 400 {@code InvalidJson} naming the line and column (1-based, in characters) and what was
     *                      wrong there ({@link JsonSyntax}); 400 {@code ValidationFailed} at {@code $} for an empty body
     */
    static JsonNode parseJson(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            throw ApiException.badField("$", "body is empty: send a JSON document");
        }
        try {
            return READER.readTree(text);
        } catch (JsonProcessingException e) {
            String where = JsonSyntax.where(e);
            String reason = "not valid JSON" + (where.isEmpty() ? "" : " at " + where) + " (" + JsonSyntax.reason(e, "body") + ")";
            throw new ApiException(400, "InvalidJson", "body: " + reason, List.of(Map.of("path", "$", "reason", reason)));
        }
    }
}
