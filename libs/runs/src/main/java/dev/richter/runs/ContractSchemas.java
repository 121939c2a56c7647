package dev.richter.runs;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi31;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The component schemas of the API's OpenAPI 3.1 document ({@code openapi.json} on the classpath,
 * {@code #/components/schemas/<name>}), checked with networknt json-schema-validator in the OpenAPI 3.1 dialect
 * (JSON Schema 2020-12). Each schema is loaded once, then cached; instances are thread-safe.
 */
public final class ContractSchemas {
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

    /** The names the schemas had as files ({@code schemas/plan.schema.json}, ...), still accepted. */
    private static final Map<String, String> FORMER_NAMES = Map.of("plan", "PlanInput", "service", "ServiceInput",
            "safety", "SafetyConfig");

    /** The keywords whose message is about one field the object's schema does not define ({@code getProperty()}). */
    private static final Set<String> UNKNOWN_FIELD_KEYWORDS = Set.of("additionalProperties", "unevaluatedProperties");

    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();
    private volatile JsonNode document;

    /**
     * The component schema {@code name} ({@code PlanInput}, {@code ServiceInput}, {@code SafetyConfig},
     * {@code FlowInput}, {@code FlowRunRequest}, ...; also {@code plan}, {@code service}, {@code safety}).
     *
     * @throws IllegalArgumentException when the document has no such component
     */
    public JsonSchema schema(String name) {
        return schemas.computeIfAbsent(FORMER_NAMES.getOrDefault(name, name),
                n -> FACTORY.getSchema(SchemaLocation.of("classpath:openapi.json#/components/schemas/" + n)));
    }

    /**
     * Every way {@code doc} breaks component schema {@code name}, sorted by path, each once. A field the schema does not
     * define is reported at its own path ({@code $.preTest.qqps}, not the object's {@code $.preTest}), with the fields
     * the object does take: {@code unknown field; the fields here are qps, durationS, settleS} (server fields, {@code readOnly},
     * left out: they are ignored on input).
     *
     * @return the problems; empty when {@code doc} is valid
     */
    public List<InputProblem> problems(String name, JsonNode doc) {
        return schema(name).validate(doc).stream()
                .map(this::problem)
                .sorted(Comparator.comparing(InputProblem::path))
                .distinct()
                .toList();
    }

    private InputProblem problem(ValidationMessage m) {
        if (UNKNOWN_FIELD_KEYWORDS.contains(m.getType()) && m.getProperty() != null) {
            return new InputProblem(m.getInstanceLocation().append(m.getProperty()).toString(), unknownField(m));
        }
        return new InputProblem(m.getInstanceLocation().toString(), reason(m));
    }

    /** The reason for a field the object's schema does not define, naming the fields it does. */
    private String unknownField(ValidationMessage m) {
        // the keyword's schema location is <object schema>/additionalProperties: its sibling "properties" are the fields
        String pointer = m.getSchemaLocation().getFragment().toString();
        JsonNode object = document().at(pointer.substring(0, pointer.lastIndexOf('/')));
        List<String> fields = new ArrayList<>();
        object.path("properties").properties().forEach(p -> {
            if (!p.getValue().path("readOnly").asBoolean(false)) {
                fields.add(p.getKey());
            }
        });
        return fields.isEmpty() ? "unknown field; this object takes no fields"
                : "unknown field; the fields here are " + String.join(", ", fields);
    }

    /** {@code openapi.json} as a tree, read once, for what the validator's messages leave out. */
    private JsonNode document() {
        JsonNode d = document;
        if (d == null) {
            try (InputStream in = ContractSchemas.class.getResourceAsStream("/openapi.json")) {
                d = Json.MAPPER.readTree(in);
            } catch (IOException e) {
                throw new UncheckedIOException("openapi.json not readable from the classpath", e);
            }
            document = d;
        }
        return d;
    }

    /** The validator's message without its leading instance path (the path is reported separately). */
    private static String reason(ValidationMessage m) {
        String msg = m.getMessage();
        String loc = m.getInstanceLocation().toString();
        return msg.startsWith(loc + ": ") ? msg.substring(loc.length() + 2) : msg;
    }
}
