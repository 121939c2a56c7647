package dev.richter.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectReader;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi31;
import dev.richter.common.Json;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Parses request bodies and validates them against the component schemas of the API's OpenAPI 3.1 document
 * ({@code openapi.json}, {@code #/components/schemas/<name>}), with networknt json-schema-validator in the OpenAPI 3.1
 * dialect (JSON Schema 2020-12). Every problem is reported with its JSON path (e.g. {@code $.preTest.qps}) and the
 * reason; nothing is stored when any is found.
 */
public final class InputValidator {
    /**
     * The OpenAPI 3.1 dialect, plus the document's own top-level fields as non-validating keywords: a schema is loaded
     * by pointer into {@code openapi.json}, so the library reads the document root as a schema too (and, without
     * these, warns "Unknown keyword openapi/info/..." once per field).
     */
    private static final JsonMetaSchema DIALECT = JsonMetaSchema
            .builder(OpenApi31.getInstance())
            .keywords(Stream.of("openapi", "info", "jsonSchemaDialect", "servers", "security", "paths",
                    "components", "tags", "webhooks", "externalDocs").map(NonValidationKeyword::new).toList())
            .build();
    /**
     * The schema factory for {@code openapi.json}: JSON Schema 2020-12 with the OpenAPI 3.1 dialect above. Shared with
     * the integration tests' conformance check, so requests and responses are validated by the same rules.
     */
    public static final JsonSchemaFactory FACTORY = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012,
            b -> b.metaSchema(DIALECT).defaultMetaSchemaIri(DIALECT.getIri()));
    private static final ObjectReader READER = Json.MAPPER.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Pattern UNEXPECTED_CHAR = Pattern.compile("^Unexpected character \\('(.{1,2})' \\(code");
    private static final Pattern UNRECOGNIZED = Pattern.compile("^Unrecognized token '([^']{0,40})");

    /** The names the schemas had as files ({@code schemas/plan.schema.json}, ...), still accepted by {@link #parse}. */
    private static final Map<String, String> FORMER_NAMES = Map.of("plan", "PlanInput", "service", "ServiceInput",
            "safety", "SafetyConfig");

    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

    /**
     * The component schema {@code name} of {@code openapi.json} (loaded once, then cached).
     *
     * @throws IllegalArgumentException when the document has no such component
     */
    JsonSchema schema(String name) {
        return schemas.computeIfAbsent(name, n -> FACTORY.getSchema(SchemaLocation.of("classpath:openapi.json#/components/schemas/" + n)));
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
        JsonNode doc = parseJson(body);
        Set<ValidationMessage> problems = schema(FORMER_NAMES.getOrDefault(name, name)).validate(doc);
        if (!problems.isEmpty()) {
            List<Map<String, String>> errors = problems.stream()
                    .sorted(Comparator.comparing((ValidationMessage m) -> m.getInstanceLocation().toString()))
                    .map(m -> Map.of("path", m.getInstanceLocation().toString(), "reason", reason(m)))
                    .distinct()
                    .toList();
            throw new ApiException(400, "ValidationFailed", errors.get(0).get("path") + ": " + errors.get(0).get("reason"), errors);
        }
        return doc;
    }

    /**
     * One JSON value from {@code body} (UTF-8).
     *
     * @throws ApiException 400 {@code InvalidJson} naming the line and column (1-based, in characters) and what was
     *                      wrong there; 400 {@code ValidationFailed} at {@code $} for an empty body
     */
    static JsonNode parseJson(byte[] body) {
        String text = new String(body, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            throw ApiException.badField("$", "body is empty: send a JSON document");
        }
        try {
            return READER.readTree(text);
        } catch (JsonProcessingException e) {
            var loc = e.getLocation();
            String where = loc == null ? "" : " at line " + loc.getLineNr() + ", column " + loc.getColumnNr();
            String what = what(e);
            String reason = "not valid JSON" + where + (what.isEmpty() ? "" : " (" + what + ")");
            throw new ApiException(400, "InvalidJson", "body: " + reason, List.of(Map.of("path", "$", "reason", reason)));
        }
    }

    /** What the parser found, in a few words of ours (never the parser's own message, which names its internals). */
    private static String what(JsonProcessingException e) {
        if (e instanceof JsonEOFException) {
            return "the body ends before the JSON value does";
        }
        String msg = e.getOriginalMessage() == null ? "" : e.getOriginalMessage();
        Matcher m = UNEXPECTED_CHAR.matcher(msg);
        if (m.find()) {
            return "unexpected character '" + m.group(1) + "'";
        }
        m = UNRECOGNIZED.matcher(msg);
        if (m.find()) {
            return "unknown word '" + m.group(1) + "'";
        }
        if (msg.startsWith("Trailing token")) {
            return "more content after the JSON value";
        }
        if (msg.contains("Illegal unquoted character") || msg.contains("control character")) {
            return "a control character inside a string must be escaped";
        }
        if (msg.contains("Unexpected end-of-input")) {
            return "the body ends before the JSON value does";
        }
        return "";
    }

    /** The validator's message without its leading instance path (the path is reported separately). */
    private static String reason(ValidationMessage m) {
        String msg = m.getMessage();
        String loc = m.getInstanceLocation().toString();
        return msg.startsWith(loc + ": ") ? msg.substring(loc.length() + 2) : msg;
    }
}
