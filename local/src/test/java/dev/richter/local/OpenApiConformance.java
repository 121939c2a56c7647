package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.ValidationMessage;
import dev.richter.common.Json;
import dev.richter.runs.ContractSchemas;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Checks every exchange of the integration tests against the API's OpenAPI 3.1 document ({@code openapi.json}, the
 * one {@code GET /openapi.json} serves), with networknt json-schema-validator in the OpenAPI 3.1 dialect.
 *
 * <p>Rules, for each request and its response: the path and method must be an operation of the document, or else
 * the response must be an error in the {@code Error} shape (unknown routes and methods); the response status must
 * be documented for the operation (or covered by its {@code default}); the response's content type must be one the
 * status documents and its JSON body must be valid against that schema (a status without content must have no
 * body); a request the API accepted (2xx) must have a body valid against the operation's request schema. A failure
 * is an {@link AssertionError} naming the exchange and every problem, thrown in the test that made the request.
 */
final class OpenApiConformance {
    /** The plan API's own schema factory for {@code openapi.json} (OpenAPI 3.1 dialect). */
    private static final JsonSchemaFactory FACTORY = ContractSchemas.FACTORY;
    private static final JsonNode DOC = load();
    private static final Map<String, JsonSchema> SCHEMAS = new ConcurrentHashMap<>();
    /** Exchanges checked so far in this JVM. */
    static final AtomicLong CHECKED = new AtomicLong();

    private OpenApiConformance() {}

    /** Checks every {@link ApiClient} exchange from now on (idempotent). */
    static void install() {
        ApiClient.observer = OpenApiConformance::check;
    }

    private static JsonNode load() {
        try (InputStream in = OpenApiConformance.class.getResourceAsStream("/openapi.json")) {
            return Json.MAPPER.readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The document's path template matching {@code path} (literal segments before parameters), or null. */
    static String pathTemplate(String path) {
        String best = null;
        int bestLiterals = -1;
        for (var it = DOC.path("paths").fieldNames(); it.hasNext(); ) {
            String t = it.next();
            String[] ts = t.split("/", -1);
            String[] ps = path.split("/", -1);
            if (ts.length != ps.length) {
                continue;
            }
            int literals = 0;
            boolean ok = true;
            for (int i = 0; i < ts.length && ok; i++) {
                if (ts[i].startsWith("{") && ts[i].endsWith("}")) {
                    ok = !ps[i].isEmpty();
                } else if (ts[i].equals(ps[i])) {
                    literals++;
                } else {
                    ok = false;
                }
            }
            if (ok && literals > bestLiterals) {
                best = t;
                bestLiterals = literals;
            }
        }
        return best;
    }

    /**
     * Checks one exchange.
     *
     * @throws AssertionError listing every way the exchange departs from the document
     */
    static void check(ApiClient.Exchange ex) {
        CHECKED.incrementAndGet();
        List<String> problems = new ArrayList<>();
        String path = ex.pathAndQuery().split("\\?", 2)[0];
        String template = pathTemplate(path);
        JsonNode op = template == null ? null : DOC.path("paths").path(template).path(ex.method().toLowerCase(java.util.Locale.ROOT));
        ApiClient.Response r = ex.response();
        if (op == null || op.isMissingNode()) {
            if (r.status() < 400) {
                problems.add("no operation " + ex.method() + " " + path + " in openapi.json, yet the API answered " + r.status());
            }
            validate("#/components/schemas/Error", r.json(), "response", problems);
        } else {
            JsonNode responses = op.path("responses");
            JsonNode documented = responses.has(String.valueOf(r.status())) ? responses.get(String.valueOf(r.status()))
                    : responses.path("default");
            if (documented.isMissingNode()) {
                problems.add("status " + r.status() + " is not documented for " + ex.method() + " " + template);
            } else if (!documented.has("content")) {
                if (!r.body().isEmpty()) {
                    problems.add("status " + r.status() + " is documented without a body, but has one");
                }
            } else {
                String type = r.header("content-type") == null ? "" : r.header("content-type").split(";")[0].strip();
                JsonNode media = documented.path("content").path(type);
                if (media.isMissingNode()) {
                    problems.add("content type '" + type + "' is not documented for status " + r.status() + " of " + ex.method() + " " + template);
                } else if (type.equals("application/json")) {
                    if (r.json() == null) {
                        problems.add("response body is not JSON: " + abbreviate(r.body()));
                    } else {
                        validate(media.path("schema"), r.json(), "response", problems);
                    }
                }
            }
            String requestType = ex.requestHeaders().getOrDefault("content-type", "application/json").split(";")[0].strip();
            JsonNode requestContent = op.path("requestBody").path("content");
            if (r.status() >= 200 && r.status() < 300 && !ex.requestBody().isEmpty() && requestContent.isObject()
                    && !requestContent.has(requestType)) {
                problems.add("the API accepted a request body of type '" + requestType + "', which is not documented");
            }
            JsonNode requestSchema = requestType.equals("application/json")
                    ? requestContent.path("application/json").path("schema") : com.fasterxml.jackson.databind.node.MissingNode.getInstance();
            if (r.status() >= 200 && r.status() < 300 && !requestSchema.isMissingNode() && !ex.requestBody().isEmpty()) {
                JsonNode body;
                try {
                    body = Json.MAPPER.readTree(ex.requestBody());
                } catch (IOException e) {
                    body = null;
                    problems.add("the API accepted a request body that is not JSON");
                }
                if (body != null) {
                    validate(requestSchema, body, "request", problems);
                }
            }
        }
        if (!problems.isEmpty()) {
            throw new AssertionError("OpenAPI conformance of " + ex.method() + " " + ex.pathAndQuery() + " -> " + r.status()
                    + ": " + String.join("; ", problems) + "\n  response: " + abbreviate(r.body()));
        }
    }

    private static void validate(JsonNode schemaNode, JsonNode instance, String what, List<String> problems) {
        String ref = schemaNode.path("$ref").asText("");
        JsonSchema schema = ref.startsWith("#/") ? schema(ref) : FACTORY.getSchema(schemaNode);
        validate(schema, instance, what, problems);
    }

    private static void validate(String ref, JsonNode instance, String what, List<String> problems) {
        if (instance == null) {
            problems.add(what + " body is not JSON");
            return;
        }
        validate(schema(ref), instance, what, problems);
    }

    private static void validate(JsonSchema schema, JsonNode instance, String what, List<String> problems) {
        Set<ValidationMessage> messages = schema.validate(instance);
        messages.forEach(m -> problems.add(what + " " + m.getMessage()));
    }

    private static JsonSchema schema(String ref) {
        return SCHEMAS.computeIfAbsent(ref, r -> FACTORY.getSchema(SchemaLocation.of("classpath:openapi.json" + r)));
    }

    private static String abbreviate(String s) {
        return s.length() > 600 ? s.substring(0, 600) + "..." : s;
    }
}
