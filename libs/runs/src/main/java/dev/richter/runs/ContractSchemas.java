package dev.richter.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonMetaSchema;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.NonValidationKeyword;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import com.networknt.schema.oas.OpenApi31;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
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

    private final Map<String, JsonSchema> schemas = new ConcurrentHashMap<>();

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
     * Every way {@code doc} breaks component schema {@code name}, sorted by path, each once.
     *
     * @return the problems; empty when {@code doc} is valid
     */
    public List<InputProblem> problems(String name, JsonNode doc) {
        return schema(name).validate(doc).stream()
                .sorted(Comparator.comparing((ValidationMessage m) -> m.getInstanceLocation().toString()))
                .map(m -> new InputProblem(m.getInstanceLocation().toString(), reason(m)))
                .distinct()
                .toList();
    }

    /** The validator's message without its leading instance path (the path is reported separately). */
    private static String reason(ValidationMessage m) {
        String msg = m.getMessage();
        String loc = m.getInstanceLocation().toString();
        return msg.startsWith(loc + ": ") ? msg.substring(loc.length() + 2) : msg;
    }
}
