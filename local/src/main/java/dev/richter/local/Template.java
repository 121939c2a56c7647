package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.Projection;

/**
 * Reads {@code template.yaml} (the one source of truth) for the local stack: functions and their
 * handlers, HTTP API routes, DynamoDB tables, state machines and their substitutions.
 *
 * <p>Local naming: a function's ARN is {@code arn:aws:lambda:us-east-1:123456789012:function:<LogicalId>};
 * a table's name is {@code richter-} + the kebab-cased logical id without {@code Table}
 * ({@code RunMetricsTable} → {@code richter-run-metrics}), which matches {@code TableNames}' defaults;
 * a state machine's ARN is {@code arn:aws:states:us-east-1:123456789012:stateMachine:<LogicalId>}.
 * The template must use long-form intrinsics ({@code Fn::GetAtt}, {@code Ref}); short tags are rejected.
 */
public final class Template {
    /** Account and region of every local ARN. */
    public static final String ACCOUNT = "123456789012";
    public static final String REGION = "us-east-1";

    /** A Lambda function: logical id and handler class (without {@code ::method}). */
    public record FunctionDef(String logicalId, String handlerClass) {
        public String arn() {
            return "arn:aws:lambda:" + REGION + ":" + ACCOUNT + ":function:" + logicalId;
        }
    }

    /** An HTTP API route on a function, e.g. {@code POST /plans/{planId}/runs}. */
    public record Route(String method, String path, String functionLogicalId) {
        public String routeKey() {
            return method + " " + path;
        }
    }

    /**
     * A state machine: definition file and substitutions ({@code ${Name}} → function logical id).
     */
    public record StateMachineDef(String logicalId, Path definitionFile, Map<String, String> substitutionFunctions) {
        public String arn() {
            return "arn:aws:states:" + REGION + ":" + ACCOUNT + ":stateMachine:" + logicalId;
        }
    }

    private final Path root;
    private final JsonNode doc;

    private Template(Path root, JsonNode doc) {
        this.root = root;
        this.doc = doc;
    }

    /** Parses {@code <root>/template.yaml}; throws {@link IOException} when unreadable or not YAML. */
    public static Template load(Path root) throws IOException {
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(root.resolve("template.yaml").toFile());
        return new Template(root, doc);
    }

    private Map<String, JsonNode> resources(String type) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        doc.path("Resources").fields().forEachRemaining(e -> {
            if (type.equals(e.getValue().path("Type").asText())) {
                out.put(e.getKey(), e.getValue().path("Properties"));
            }
        });
        return out;
    }

    /** Every {@code AWS::Serverless::Function}. */
    public List<FunctionDef> functions() {
        List<FunctionDef> out = new ArrayList<>();
        resources("AWS::Serverless::Function").forEach((id, p) -> {
            String handler = p.path("Handler").asText();
            int sep = handler.indexOf("::");
            out.add(new FunctionDef(id, sep < 0 ? handler : handler.substring(0, sep)));
        });
        return out;
    }

    /** Every {@code HttpApi} event of every function. */
    public List<Route> routes() {
        List<Route> out = new ArrayList<>();
        resources("AWS::Serverless::Function").forEach((id, p) -> p.path("Events").forEach(ev -> {
            if ("HttpApi".equals(ev.path("Type").asText())) {
                out.add(new Route(ev.path("Properties").path("Method").asText().toUpperCase(Locale.ROOT),
                        ev.path("Properties").path("Path").asText(), id));
            }
        }));
        return out;
    }

    /** Every {@code AWS::Serverless::StateMachine} with its function substitutions resolved to logical ids. */
    public List<StateMachineDef> stateMachines() {
        List<StateMachineDef> out = new ArrayList<>();
        resources("AWS::Serverless::StateMachine").forEach((id, p) -> {
            Map<String, String> subs = new LinkedHashMap<>();
            p.path("DefinitionSubstitutions").fields().forEachRemaining(e -> {
                JsonNode getAtt = e.getValue().path("Fn::GetAtt");
                if (!getAtt.isArray() || getAtt.size() != 2 || !"Arn".equals(getAtt.get(1).asText())) {
                    throw new IllegalStateException("template.yaml: " + id + ".DefinitionSubstitutions." + e.getKey()
                            + " must be {Fn::GetAtt: [<Function>, Arn]}");
                }
                subs.put(e.getKey(), getAtt.get(0).asText());
            });
            out.add(new StateMachineDef(id, root.resolve(p.path("DefinitionUri").asText()), subs));
        });
        return out;
    }

    /**
     * The event pattern of every {@code AWS::Events::Rule}, as JSON text (logical id → pattern), for
     * matching emitted events with event-ruler the way EventBridge would.
     */
    public Map<String, String> eventRulePatterns() {
        Map<String, String> out = new LinkedHashMap<>();
        resources("AWS::Events::Rule").forEach((id, p) -> out.put(id, p.path("EventPattern").toString()));
        return out;
    }

    /** The local physical name of a table logical id ({@code RunMetricsTable} → {@code richter-run-metrics}). */
    public static String localTableName(String logicalId) {
        String base = logicalId.endsWith("Table") ? logicalId.substring(0, logicalId.length() - 5) : logicalId;
        return "richter-" + base.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** A CreateTable request for every {@code AWS::DynamoDB::Table}, with its GSIs. */
    public List<CreateTableRequest> tables() {
        List<CreateTableRequest> out = new ArrayList<>();
        resources("AWS::DynamoDB::Table").forEach((id, p) -> {
            List<AttributeDefinition> attrs = new ArrayList<>();
            p.path("AttributeDefinitions").forEach(a -> attrs.add(AttributeDefinition.builder()
                    .attributeName(a.path("AttributeName").asText()).attributeType(a.path("AttributeType").asText()).build()));
            List<GlobalSecondaryIndex> gsis = new ArrayList<>();
            p.path("GlobalSecondaryIndexes").forEach(g -> gsis.add(GlobalSecondaryIndex.builder()
                    .indexName(g.path("IndexName").asText()).keySchema(keys(g.path("KeySchema")))
                    .projection(Projection.builder().projectionType(g.path("Projection").path("ProjectionType").asText("ALL")).build())
                    .build()));
            var b = CreateTableRequest.builder().tableName(localTableName(id)).attributeDefinitions(attrs)
                    .keySchema(keys(p.path("KeySchema"))).billingMode(BillingMode.PAY_PER_REQUEST);
            if (!gsis.isEmpty()) {
                b.globalSecondaryIndexes(gsis);
            }
            out.add(b.build());
        });
        return out;
    }

    private static List<KeySchemaElement> keys(JsonNode ks) {
        List<KeySchemaElement> out = new ArrayList<>();
        ks.forEach(k -> out.add(KeySchemaElement.builder().attributeName(k.path("AttributeName").asText())
                .keyType(k.path("KeyType").asText()).build()));
        return out;
    }

    /**
     * The state machine's ASL with every {@code ${Name}} replaced by the local function ARN.
     *
     * @throws IllegalStateException when a placeholder has no substitution
     */
    public String substitutedDefinition(StateMachineDef sm) throws IOException {
        String asl = java.nio.file.Files.readString(sm.definitionFile());
        for (var e : sm.substitutionFunctions().entrySet()) {
            asl = asl.replace("${" + e.getKey() + "}", new FunctionDef(e.getValue(), "").arn());
        }
        var m = java.util.regex.Pattern.compile("\\$\\{([A-Za-z0-9]+)}").matcher(asl);
        if (m.find()) {
            throw new IllegalStateException(sm.definitionFile() + ": no DefinitionSubstitution for ${" + m.group(1) + "}");
        }
        return asl;
    }
}
