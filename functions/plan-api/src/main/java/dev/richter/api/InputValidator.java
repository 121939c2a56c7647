package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Validates request bodies against the JSON Schemas (draft 2020-12) in {@code schemas/} with
 * networknt json-schema-validator. Every problem is reported with its JSON path (e.g.
 * {@code $.preTest.qps}) and the reason; nothing is stored when any is found.
 */
public final class InputValidator {
    private final Map<String, JsonSchema> schemas = new LinkedHashMap<>();

    /** Loads the {@code plan}, {@code service} and {@code safety} schemas from the classpath once. */
    public InputValidator() {
        JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
        for (String name : List.of("plan", "service", "safety")) {
            try (InputStream in = InputValidator.class.getResourceAsStream("/schemas/" + name + ".schema.json")) {
                schemas.put(name, factory.getSchema(in));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }

    /**
     * Parses {@code body} and validates it against schema {@code name}.
     *
     * @return the parsed document
     * @throws ApiException 400 {@code InvalidJson} with line/column for unparsable JSON, 400
     *                      {@code ValidationFailed} with every {@code {path, reason}} otherwise
     */
    public JsonNode parse(String name, byte[] body) {
        JsonNode doc;
        try {
            doc = Json.MAPPER.readTree(body);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            var loc = e.getLocation();
            throw new ApiException(400, "InvalidJson", "body is not JSON at line " + (loc == null ? 0 : loc.getLineNr())
                    + ", column " + (loc == null ? 0 : loc.getColumnNr()) + ": " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        if (doc == null || doc.isMissingNode()) {
            throw ApiException.badField("$", "body is empty");
        }
        Set<ValidationMessage> problems = schemas.get(name).validate(doc);
        if (!problems.isEmpty()) {
            List<Map<String, String>> errors = problems.stream()
                    .sorted(Comparator.comparing((ValidationMessage m) -> m.getInstanceLocation().toString()))
                    .map(m -> Map.of("path", m.getInstanceLocation().toString(), "reason", reason(m)))
                    .toList();
            throw new ApiException(400, "ValidationFailed", errors.get(0).get("path") + ": " + errors.get(0).get("reason"), errors);
        }
        return doc;
    }

    /** The validator's message without its leading instance path (the path is reported separately). */
    private static String reason(ValidationMessage m) {
        String msg = m.getMessage();
        String loc = m.getInstanceLocation().toString();
        return msg.startsWith(loc + ": ") ? msg.substring(loc.length() + 2) : msg;
    }
}
