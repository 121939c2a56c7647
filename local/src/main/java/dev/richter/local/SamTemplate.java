package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.TextNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.richter.common.Json;
import dev.richter.sizing.Quotas;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.BillingMode;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.Projection;

/**
 * Reads {@code template.yaml} (the one source of truth) for the local stack: functions with their
 * handlers, timeouts, memory and environment, HTTP API routes, DynamoDB tables, state machines and
 * their substitutions, with the template's parameters set as {@code sam deploy --parameter-overrides}
 * would set them ({@link #load(Path, Map)}, {@link #withParameterOverrides(Map)}).
 *
 * <p>Local naming: a function's name is its logical id and its ARN
 * {@code arn:aws:lambda:us-east-1:123456789012:function:<LogicalId>}; a table's name is
 * {@code richter-} + the kebab-cased logical id without {@code Table}
 * ({@code RunMetricsTable} → {@code richter-run-metrics}), which matches {@code TableNames}' defaults;
 * a state machine's name is its {@code Name} property when it has one, as on AWS, else its logical id, and its ARN
 * {@code arn:aws:states:us-east-1:123456789012:stateMachine:<name>}; an event bus's name is its {@code Name}
 * property. Names follow the template where its IAM policies spell them out ({@code richter-${StageName}-load-test-run}
 * in a {@code Fn::Sub} ARN), so the local stack's {@link IamPolicies} grant what AWS grants.
 *
 * <p>Intrinsics, in every value this class reads, resolve as CloudFormation resolves them
 * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/intrinsic-function-reference-ref.html)
 * with the local names: {@code {Ref: <Parameter>}} → its override, else its {@code Default};
 * {@code {Ref: <Table>}} → the local table name; {@code {Ref: <Function>}} → the function name;
 * {@code {Ref: <StateMachine>}} → its local ARN (what AWS returns); {@code {Ref: <EventBus>}} → its name;
 * {@code {Ref: <KMS key>}} → its local key id ({@link #localKmsKeyId}, a UUID as AWS's key ids are);
 * {@code {Ref: <Bucket>}} → empty (there is no S3 locally, so e.g. {@code REPORTS_BUCKET} is unset);
 * {@code {Ref: <other resource>}} (HTTP API, topic) → its logical id; pseudo parameters ({@code AWS::Region},
 * {@code AWS::AccountId}, {@code AWS::Partition}, {@code AWS::StackName}, {@code AWS::URLSuffix}) →
 * the local values. {@code Fn::Sub}, {@code Fn::Join} and {@code Fn::GetAtt} ({@code Arn} of
 * functions, state machines, tables, event buses and KMS keys, {@code KeyId} of KMS keys, {@code Name} of state
 * machines) resolve too; any
 * other intrinsic is an {@link IllegalStateException} naming where it is. The template must use
 * long-form intrinsics: a short tag ({@code !Ref X}) reads as the plain text {@code X}.
 */
public final class SamTemplate {
    /** Account and region of every local ARN. */
    public static final String ACCOUNT = "123456789012";
    public static final String REGION = "us-east-1";
    /** {@code AWS::StackName} locally (the stack name of {@code samconfig.toml}). */
    public static final String STACK_NAME = "richter";

    /**
     * A function's timeout when neither it nor {@code Globals.Function} sets {@code Timeout}: 3 s
     * (https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html).
     */
    public static final int AWS_DEFAULT_TIMEOUT_S = 3;
    /** The largest Lambda timeout: 900 s (same page). */
    public static final int AWS_MAX_TIMEOUT_S = Quotas.LAMBDA_MAX_TIMEOUT_S;
    /**
     * A function's memory when neither it nor {@code Globals.Function} sets {@code MemorySize}: 128 MB,
     * also the smallest allowed (https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
     */
    public static final int AWS_DEFAULT_MEMORY_MB = 128;
    /** The largest Lambda memory: 10,240 MB (same page). */
    public static final int AWS_MAX_MEMORY_MB = 10_240;

    /**
     * A Lambda function.
     *
     * @param logicalId    the resource's logical id, locally also the function name
     * @param handlerClass the handler class (without {@code ::method})
     * @param timeoutS     {@code Timeout} in seconds: the function's, else {@code Globals.Function}'s, else
     *                     {@value #AWS_DEFAULT_TIMEOUT_S}; 1..{@value #AWS_MAX_TIMEOUT_S}
     * @param memoryMb     {@code MemorySize} in MB, same fallbacks, else {@value #AWS_DEFAULT_MEMORY_MB}
     * @param environment  {@code Globals.Function.Environment.Variables} merged with the function's own
     *                     (the function's win), intrinsics resolved; unmodifiable, template order
     */
    public record FunctionDef(String logicalId, String handlerClass, int timeoutS, int memoryMb, Map<String, String> environment) {
        public FunctionDef {
            environment = Collections.unmodifiableMap(new LinkedHashMap<>(environment));
        }

        /** A function with AWS's default timeout and memory and no environment (for naming, tests). */
        public FunctionDef(String logicalId, String handlerClass) {
            this(logicalId, handlerClass, AWS_DEFAULT_TIMEOUT_S, AWS_DEFAULT_MEMORY_MB, Map.of());
        }

        public String arn() {
            return functionArn(logicalId);
        }
    }

    /**
     * An HTTP API route on a function, e.g. {@code POST /plans/{planId}/runs}, or the catch-all {@code $default}
     * (SAM {@code Path: $default}, {@code Method: ANY}) that API Gateway sends every request no other route matches.
     *
     * @param authorizer the name of the route's authorizer (the event's {@code Auth.Authorizer}, else its API's
     *                   {@code Auth.DefaultAuthorizer}), empty when the route is open ({@code NONE} or no authorizer)
     */
    public record Route(String method, String path, String functionLogicalId, String authorizer) {
        public Route {
            authorizer = authorizer == null || authorizer.equals("NONE") ? "" : authorizer;
        }

        /** An open route. */
        public Route(String method, String path, String functionLogicalId) {
            this(method, path, functionLogicalId, "");
        }

        /** {@code METHOD /path}, or {@code $default} for the catch-all route. */
        public String routeKey() {
            return isDefault() ? "$default" : method + " " + path;
        }

        public boolean isDefault() {
            return "$default".equals(path);
        }
    }

    /**
     * A JWT authorizer of an {@code AWS::Serverless::HttpApi} ({@code Auth.Authorizers.<name>.JwtConfiguration}).
     *
     * @param name           the authorizer's name
     * @param issuer         {@code JwtConfiguration.issuer}, resolved
     * @param audiences      {@code JwtConfiguration.audience}, resolved
     * @param identitySource e.g. {@code $request.header.Authorization}
     */
    public record JwtAuthorizerDef(String name, String issuer, List<String> audiences, String identitySource) {
        public JwtAuthorizerDef {
            audiences = List.copyOf(audiences);
        }

        /** The lower-case header name of {@code $request.header.<Name>}. */
        public String headerName() {
            String prefix = "$request.header.";
            return identitySource.startsWith(prefix) ? identitySource.substring(prefix.length()).toLowerCase(Locale.ROOT)
                    : "authorization";
        }
    }

    /**
     * A state machine: definition file and {@code DefinitionSubstitutions}.
     *
     * @param substitutionFunctions {@code ${Name}} → function logical id, for {@code {Fn::GetAtt: [<Function>, Arn]}}, or
     *                              {@code <logical id>:<alias>} for SAM's {@code {Ref: <Function>.Alias}} (the
     *                              function's {@code AutoPublishAlias}): its ARN then carries the alias as qualifier
     * @param substitutionValues    {@code ${Name}} → resolved text, for every other substitution (parameters,
     *                              literals, other ARNs)
     */
    public record StateMachineDef(String logicalId, Path definitionFile, Map<String, String> substitutionFunctions,
                                  Map<String, String> substitutionValues, String name) {
        public StateMachineDef(String logicalId, Path definitionFile, Map<String, String> substitutionFunctions) {
            this(logicalId, definitionFile, substitutionFunctions, Map.of(), logicalId);
        }

        /** The local ARN: {@code stateMachine:<name>} ({@code Name}, else the logical id). */
        public String arn() {
            return stateMachineArn(name);
        }

        /** Every substitution name. */
        public Set<String> substitutionNames() {
            Set<String> s = new TreeSet<>(substitutionFunctions.keySet());
            s.addAll(substitutionValues.keySet());
            return s;
        }
    }

    private final Path root;
    private final JsonNode doc;
    private final Map<String, String> overrides;
    /** Every parameter's effective value: override, else Default. */
    private final Map<String, String> parameters;

    private SamTemplate(Path root, JsonNode doc, Map<String, String> overrides) {
        this.root = root;
        this.doc = doc;
        this.overrides = Collections.unmodifiableMap(new LinkedHashMap<>(overrides));
        this.parameters = Collections.unmodifiableMap(effectiveParameters(doc, overrides));
    }

    /**
     * Parses {@code <root>/template.yaml} with every parameter at its {@code Default}.
     *
     * @throws IOException              when unreadable or not YAML
     * @throws IllegalArgumentException when a parameter has no {@code Default}
     */
    public static SamTemplate load(Path root) throws IOException {
        return load(root, Map.of());
    }

    /**
     * Parses {@code <root>/template.yaml} with {@code parameterOverrides} (name → value, as
     * {@code sam deploy --parameter-overrides Name=Value}).
     *
     * @throws IOException              when unreadable or not YAML
     * @throws IllegalArgumentException naming them, when an override names no parameter of the template,
     *                                  a value breaks its parameter's constraints ({@code Type: Number},
     *                                  {@code AllowedValues}, {@code AllowedPattern}, {@code Min/MaxValue},
     *                                  {@code Min/MaxLength}) or a parameter has neither value nor Default
     */
    public static SamTemplate load(Path root, Map<String, String> parameterOverrides) throws IOException {
        return load(root, root.resolve("template.yaml"), parameterOverrides);
    }

    /**
     * Parses {@code templateFile} (e.g. a test's edited copy of {@code template.yaml}); paths in it
     * ({@code DefinitionUri}) are read from {@code root}, as for {@link #load(Path, Map)}.
     */
    public static SamTemplate load(Path root, Path templateFile, Map<String, String> parameterOverrides) throws IOException {
        JsonNode doc = new ObjectMapper(new YAMLFactory()).readTree(templateFile.toFile());
        return new SamTemplate(root, doc, parameterOverrides);
    }

    /**
     * This template with {@code parameterOverrides} in place of its current overrides.
     *
     * @throws IllegalArgumentException as {@link #load(Path, Map)}
     */
    public SamTemplate withParameterOverrides(Map<String, String> parameterOverrides) {
        return new SamTemplate(root, doc, parameterOverrides);
    }

    /** The parameter overrides this template was loaded with (name → value). */
    public Map<String, String> parameterOverrides() {
        return overrides;
    }

    /** Every parameter's effective value (name → override, else Default), in template order. */
    public Map<String, String> parameters() {
        return parameters;
    }

    /** The local ARN of a function logical id. */
    public static String functionArn(String logicalId) {
        return "arn:aws:lambda:" + REGION + ":" + ACCOUNT + ":function:" + logicalId;
    }

    /** The local ARN of a state machine name (its {@code Name} property, else its logical id). */
    public static String stateMachineArn(String name) {
        return "arn:aws:states:" + REGION + ":" + ACCOUNT + ":stateMachine:" + name;
    }

    /**
     * The local name of an {@code AWS::IAM::Role}: its {@code RoleName}, else {@code richter-<LogicalId>} (AWS generates
     * {@code <stack>-<LogicalId>-<suffix>}).
     */
    String roleName(String logicalId) {
        JsonNode name = doc.path("Resources").path(logicalId).path("Properties").path("RoleName");
        return name.isMissingNode() ? STACK_NAME + "-" + logicalId : text(name, logicalId + ".RoleName");
    }

    /**
     * The physical name of a state machine or event bus: its {@code Name} property resolved, else its logical id
     * (AWS generates a name then; the logical id stands for it locally).
     */
    String resourceName(String logicalId) {
        JsonNode name = doc.path("Resources").path(logicalId).path("Properties").path("Name");
        String resolved = name.isMissingNode() ? null : text(name, logicalId + ".Name");
        return resolved == null || resolved.isBlank() ? logicalId : resolved;
    }

    private static Map<String, String> effectiveParameters(JsonNode doc, Map<String, String> overrides) {
        JsonNode declared = doc.path("Parameters");
        Set<String> unknown = new TreeSet<>(overrides.keySet());
        declared.fieldNames().forEachRemaining(unknown::remove);
        if (!unknown.isEmpty()) {
            Set<String> names = new TreeSet<>();
            declared.fieldNames().forEachRemaining(names::add);
            throw new IllegalArgumentException("parameter overrides name no parameter of template.yaml: " + unknown
                    + " (its parameters: " + names + ")");
        }
        Map<String, String> out = new LinkedHashMap<>();
        List<String> missing = new ArrayList<>();
        declared.fields().forEachRemaining(e -> {
            String name = e.getKey();
            JsonNode p = e.getValue();
            String value = overrides.containsKey(name) ? overrides.get(name)
                    : p.has("Default") && !p.get("Default").isNull() ? p.get("Default").asText() : null;
            if (value == null) {
                missing.add(name);
                return;
            }
            checkParameter(name, p, value);
            out.put(name, value);
        });
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException("template.yaml: parameters " + missing
                    + " have no Default and no override (sam deploy fails the same way: they must have values)");
        }
        return out;
    }

    /**
     * CloudFormation's parameter constraints
     * (https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/parameters-section-structure.html).
     */
    private static void checkParameter(String name, JsonNode p, String value) {
        String where = "template parameter " + name + "='" + value + "'";
        if ("Number".equals(p.path("Type").asText())) {
            BigDecimal n;
            try {
                n = new BigDecimal(value.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(where + ": Type Number needs a number");
            }
            if (p.has("MinValue") && n.compareTo(new BigDecimal(p.get("MinValue").asText())) < 0) {
                throw new IllegalArgumentException(where + ": below MinValue " + p.get("MinValue").asText());
            }
            if (p.has("MaxValue") && n.compareTo(new BigDecimal(p.get("MaxValue").asText())) > 0) {
                throw new IllegalArgumentException(where + ": above MaxValue " + p.get("MaxValue").asText());
            }
        }
        if (p.has("AllowedValues")) {
            List<String> allowed = new ArrayList<>();
            p.get("AllowedValues").forEach(v -> allowed.add(v.asText()));
            if (!allowed.contains(value)) {
                throw new IllegalArgumentException(where + ": not one of AllowedValues " + allowed);
            }
        }
        if (p.has("AllowedPattern") && !value.matches(p.get("AllowedPattern").asText())) {
            throw new IllegalArgumentException(where + ": does not match AllowedPattern " + p.get("AllowedPattern").asText());
        }
        if (p.has("MinLength") && value.length() < p.get("MinLength").asInt()) {
            throw new IllegalArgumentException(where + ": shorter than MinLength " + p.get("MinLength").asInt());
        }
        if (p.has("MaxLength") && value.length() > p.get("MaxLength").asInt()) {
            throw new IllegalArgumentException(where + ": longer than MaxLength " + p.get("MaxLength").asInt());
        }
    }

    /** The {@code Properties} of every resource of one of {@code types}, by logical id, in template order. */
    Map<String, JsonNode> resourcesOf(String... types) {
        return resources(types);
    }

    private Map<String, JsonNode> resources(String... types) {
        Set<String> wanted = Set.of(types);
        Map<String, JsonNode> out = new LinkedHashMap<>();
        doc.path("Resources").fields().forEachRemaining(e -> {
            if (wanted.contains(e.getValue().path("Type").asText())) {
                out.put(e.getKey(), e.getValue().path("Properties"));
            }
        });
        return out;
    }

    private String resourceType(String logicalId) {
        JsonNode r = doc.path("Resources").path(logicalId);
        return r.isMissingNode() ? null : r.path("Type").asText();
    }

    /**
     * The local key id of an {@code AWS::KMS::Key} logical id: a name-based UUID (RFC 9562 version 3) of
     * {@code richter/<LogicalId>}, so every local stack, and every run of it, names the key alike (AWS generates a random
     * UUID when it creates the key).
     */
    public static String localKmsKeyId(String logicalId) {
        return java.util.UUID.nameUUIDFromBytes(("richter/" + logicalId).getBytes(java.nio.charset.StandardCharsets.UTF_8)).toString();
    }

    /** The local ARN of a KMS key id: {@code arn:aws:kms:<region>:<account>:key/<keyId>}. */
    public static String kmsKeyArn(String keyId) {
        return "arn:aws:kms:" + REGION + ":" + ACCOUNT + ":key/" + keyId;
    }

    /** Every {@code AWS::KMS::Key}'s logical id → its local key id ({@link #localKmsKeyId}), in template order. */
    public Map<String, String> kmsKeys() {
        Map<String, String> out = new LinkedHashMap<>();
        resources("AWS::KMS::Key").keySet().forEach(id -> out.put(id, localKmsKeyId(id)));
        return out;
    }

    /** The local names ({@code Ref}) of every {@code AWS::Scheduler::ScheduleGroup}: their logical ids. */
    public Set<String> scheduleGroups() {
        return new java.util.TreeSet<>(resources("AWS::Scheduler::ScheduleGroup").keySet());
    }

    /** Every {@code AWS::Serverless::Function}, with timeout, memory and environment resolved. */
    public List<FunctionDef> functions() {
        JsonNode globals = doc.path("Globals").path("Function");
        List<FunctionDef> out = new ArrayList<>();
        resources("AWS::Serverless::Function").forEach((id, p) -> {
            String handler = text(p.path("Handler"), id + ".Handler");
            if (handler == null || handler.isBlank()) {
                throw new IllegalStateException("template.yaml: " + id + ".Handler is missing");
            }
            int sep = handler.indexOf("::");
            int timeoutS = intProperty(id, "Timeout", p, globals, AWS_DEFAULT_TIMEOUT_S, 1, AWS_MAX_TIMEOUT_S,
                    "https://docs.aws.amazon.com/lambda/latest/dg/configuration-timeout.html");
            int memoryMb = intProperty(id, "MemorySize", p, globals, AWS_DEFAULT_MEMORY_MB, AWS_DEFAULT_MEMORY_MB, AWS_MAX_MEMORY_MB,
                    "https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html");
            Map<String, String> env = new LinkedHashMap<>();
            globals.path("Environment").path("Variables").fields().forEachRemaining(v ->
                    env.put(v.getKey(), text(v.getValue(), "Globals.Function.Environment.Variables." + v.getKey())));
            p.path("Environment").path("Variables").fields().forEachRemaining(v ->
                    env.put(v.getKey(), text(v.getValue(), id + ".Environment.Variables." + v.getKey())));
            env.values().removeIf(Objects::isNull);
            out.add(new FunctionDef(id, sep < 0 ? handler : handler.substring(0, sep), timeoutS, memoryMb, env));
        });
        return out;
    }

    /** The function's integer property, else Globals.Function's, else {@code fallback}; checked against AWS's range. */
    private int intProperty(String id, String name, JsonNode props, JsonNode globals, int fallback, int min, int max, String source) {
        boolean own = props.has(name);
        JsonNode node = own ? props.get(name) : globals.path(name);
        String where = own ? id + "." + name : "Globals.Function." + name + " (for " + id + ")";
        String v = text(node, where);
        if (v == null) {
            return fallback;
        }
        int n;
        try {
            n = Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalStateException("template.yaml: " + where + " must be an integer or {Ref: <Parameter>} "
                    + "(long form; a short tag such as !Ref is not read), was '" + v + "'");
        }
        if (n < min || n > max) {
            throw new IllegalStateException("template.yaml: " + where + " = " + n + " is outside AWS's range " + min + ".." + max
                    + " (" + source + ")");
        }
        return n;
    }

    /**
     * Every {@code HttpApi} event of every function, with its authorizer: the event's {@code Auth.Authorizer}, else
     * the {@code Auth.DefaultAuthorizer} of the API its {@code ApiId} names.
     */
    public List<Route> routes() {
        List<Route> out = new ArrayList<>();
        resources("AWS::Serverless::Function").forEach((id, p) -> p.path("Events").fields().forEachRemaining(ev -> {
            JsonNode e = ev.getValue();
            if ("HttpApi".equals(e.path("Type").asText())) {
                String where = id + ".Events." + ev.getKey() + ".Properties.";
                JsonNode props = e.path("Properties");
                String method = text(props.path("Method"), where + "Method");
                String path = text(props.path("Path"), where + "Path");
                String authorizer = text(props.path("Auth").path("Authorizer"), where + "Auth.Authorizer");
                if (authorizer == null) {
                    String api = text(props.path("ApiId"), where + "ApiId");
                    authorizer = api == null ? null
                            : text(doc.path("Resources").path(api).path("Properties").path("Auth").path("DefaultAuthorizer"),
                                    api + ".Properties.Auth.DefaultAuthorizer");
                }
                out.add(new Route(method == null ? "" : method.toUpperCase(Locale.ROOT), path == null ? "" : path, id, authorizer));
            }
        }));
        return out;
    }

    /** Every JWT authorizer of every {@code AWS::Serverless::HttpApi}, by name, issuer and audiences resolved. */
    public Map<String, JwtAuthorizerDef> jwtAuthorizers() {
        Map<String, JwtAuthorizerDef> out = new LinkedHashMap<>();
        resources("AWS::Serverless::HttpApi").forEach((id, p) -> p.path("Auth").path("Authorizers").fields().forEachRemaining(a -> {
            JsonNode jwt = a.getValue().path("JwtConfiguration");
            if (jwt.isMissingNode()) {
                return;
            }
            String where = id + ".Auth.Authorizers." + a.getKey() + ".JwtConfiguration.";
            List<String> audiences = new ArrayList<>();
            jwt.path("audience").forEach(v -> audiences.add(text(v, where + "audience")));
            String source = text(a.getValue().path("IdentitySource"), id + ".Auth.Authorizers." + a.getKey() + ".IdentitySource");
            out.put(a.getKey(), new JwtAuthorizerDef(a.getKey(), text(jwt.path("issuer"), where + "issuer"), audiences,
                    source == null ? "$request.header.Authorization" : source));
        }));
        return out;
    }

    /**
     * Every {@code AWS::Serverless::StateMachine}: substitutions {@code {Fn::GetAtt: [<Function>, Arn]}} and
     * {@code {Ref: <Function>.Alias}} go
     * to {@link StateMachineDef#substitutionFunctions()} (logical id), every other one is resolved to text in
     * {@link StateMachineDef#substitutionValues()}.
     */
    public List<StateMachineDef> stateMachines() {
        List<StateMachineDef> out = new ArrayList<>();
        resources("AWS::Serverless::StateMachine").forEach((id, p) -> {
            Map<String, String> functions = new LinkedHashMap<>();
            Map<String, String> values = new LinkedHashMap<>();
            p.path("DefinitionSubstitutions").fields().forEachRemaining(e -> {
                JsonNode getAtt = e.getValue().path("Fn::GetAtt");
                String where = id + ".DefinitionSubstitutions." + e.getKey();
                if (getAtt.isArray() && getAtt.size() == 2 && "Arn".equals(getAtt.get(1).asText())
                        && "AWS::Serverless::Function".equals(resourceType(getAtt.get(0).asText()))) {
                    functions.put(e.getKey(), getAtt.get(0).asText());
                } else if (e.getValue().path("Ref").asText().endsWith(".Alias")
                        && "AWS::Serverless::Function".equals(resourceType(aliased(e.getValue())))) {
                    functions.put(e.getKey(), aliased(e.getValue()) + ":" + autoPublishAlias(aliased(e.getValue()), where));
                } else {
                    values.put(e.getKey(), text(e.getValue(), where));
                }
            });
            out.add(new StateMachineDef(id, root.resolve(text(p.path("DefinitionUri"), id + ".DefinitionUri")), functions, values,
                    resourceName(id)));
        });
        return out;
    }

    /** The function of SAM's {@code {Ref: <Function>.Alias}}. */
    private static String aliased(JsonNode ref) {
        String r = ref.path("Ref").asText();
        return r.substring(0, r.length() - ".Alias".length());
    }

    /** The function's {@code AutoPublishAlias}, else {@code Globals.Function}'s; {@code Ref: <id>.Alias} needs one. */
    private String autoPublishAlias(String functionId, String where) {
        JsonNode own = doc.path("Resources").path(functionId).path("Properties").path("AutoPublishAlias");
        JsonNode alias = own.isTextual() ? own : doc.path("Globals").path("Function").path("AutoPublishAlias");
        if (!alias.isTextual() || alias.asText().isBlank()) {
            throw new IllegalStateException("template.yaml: " + where + ": Ref " + functionId
                    + ".Alias needs AutoPublishAlias on the function or in Globals.Function");
        }
        return alias.asText();
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

    /**
     * One {@code AWS::Events::Rule} that targets Lambda functions, as the local EventBridge delivers it.
     *
     * @param logicalId       the rule's logical id
     * @param eventBusName    the bus it listens on ({@code default} when the rule names none, as on AWS)
     * @param pattern         the event pattern as JSON text, intrinsics ({@code Ref}, {@code Fn::GetAtt},
     *                        {@code Fn::Sub}) resolved to their local values
     * @param functionTargets logical ids of the functions among its targets (other targets, e.g. SNS, are not
     *                        delivered locally)
     */
    public record EventRule(String logicalId, String eventBusName, String pattern, List<String> functionTargets) {}

    /** Every {@code AWS::Events::Rule} with at least one Lambda function target. */
    public List<EventRule> eventRules() {
        List<EventRule> out = new ArrayList<>();
        resources("AWS::Events::Rule").forEach((id, p) -> {
            String where = id + ".Properties";
            List<String> functions = new ArrayList<>();
            for (JsonNode target : p.path("Targets")) {
                String arn = text(target.path("Arn"), where + ".Targets");
                int fn = arn == null ? -1 : arn.indexOf(":function:");
                if (fn >= 0) {
                    functions.add(arn.substring(fn + ":function:".length()));
                }
            }
            if (!functions.isEmpty()) {
                String bus = p.has("EventBusName") ? text(p.get("EventBusName"), where + ".EventBusName") : "default";
                out.add(new EventRule(id, bus, resolveTree(p.path("EventPattern"), where + ".EventPattern").toString(),
                        List.copyOf(functions)));
            }
        });
        return out;
    }

    /** {@code node} with every intrinsic function object replaced by its local text value. */
    private JsonNode resolveTree(JsonNode node, String where) {
        if (node.isObject() && node.size() == 1) {
            String key = node.fieldNames().next();
            if (key.equals("Ref") || key.startsWith("Fn::")) {
                return TextNode.valueOf(text(node, where));
            }
        }
        if (node.isObject()) {
            var copy = Json.MAPPER.createObjectNode();
            node.fields().forEachRemaining(e -> copy.set(e.getKey(), resolveTree(e.getValue(), where + "." + e.getKey())));
            return copy;
        }
        if (node.isArray()) {
            var copy = Json.MAPPER.createArrayNode();
            node.forEach(v -> copy.add(resolveTree(v, where)));
            return copy;
        }
        return node;
    }

    /** The local physical name of a table logical id ({@code RunMetricsTable} → {@code richter-run-metrics}). */
    public static String localTableName(String logicalId) {
        String base = logicalId.endsWith("Table") ? logicalId.substring(0, logicalId.length() - 5) : logicalId;
        return "richter-" + base.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    /** Every {@code AWS::DynamoDB::Table}'s logical id → its local physical name ({@link #localTableName}), in template order. */
    public Map<String, String> tableNames() {
        Map<String, String> out = new LinkedHashMap<>();
        resources("AWS::DynamoDB::Table").keySet().forEach(id -> out.put(id, localTableName(id)));
        return out;
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
     * The state machine's ASL with every {@code ${Name}} replaced: function substitutions by the local
     * function ARN, the others by their resolved text.
     *
     * @throws IllegalStateException when a placeholder has no substitution
     */
    public String substitutedDefinition(StateMachineDef sm) throws IOException {
        String asl = Files.readString(sm.definitionFile());
        for (var e : sm.substitutionFunctions().entrySet()) {
            asl = asl.replace("${" + e.getKey() + "}", functionArn(e.getValue()));
        }
        for (var e : sm.substitutionValues().entrySet()) {
            asl = asl.replace("${" + e.getKey() + "}", e.getValue());
        }
        Matcher m = Pattern.compile("\\$\\{([A-Za-z0-9]+)}").matcher(asl);
        if (m.find()) {
            throw new IllegalStateException(sm.definitionFile() + ": no DefinitionSubstitution for ${" + m.group(1) + "}");
        }
        return asl;
    }

    // ------------------------------------------------------------------ intrinsics

    /**
     * The text of a template value with its intrinsics resolved (see the class comment); null when
     * the node is missing or null.
     *
     * @param where names the value in error messages ({@code LoadDriverFunction.Timeout})
     * @throws IllegalStateException naming {@code where} when the value is a list or map that is no
     *                               supported intrinsic, or refers to nothing in the template
     */
    String text(JsonNode node, String where) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return null;
        }
        if (node.isValueNode()) {
            return node.asText();
        }
        if (node.isObject() && node.size() == 1) {
            String fn = node.fieldNames().next();
            JsonNode arg = node.get(fn);
            switch (fn) {
                case "Ref" -> {
                    return ref(arg.asText(), where);
                }
                case "Fn::GetAtt" -> {
                    List<String> parts = new ArrayList<>();
                    if (arg.isArray()) {
                        arg.forEach(a -> parts.add(text(a, where)));
                    } else {
                        parts.addAll(List.of(arg.asText().split("\\.", 2)));
                    }
                    if (parts.size() != 2) {
                        throw new IllegalStateException("template.yaml: " + where + ": Fn::GetAtt needs [<LogicalId>, <Attribute>]");
                    }
                    return getAtt(parts.get(0), parts.get(1), where);
                }
                case "Fn::Sub" -> {
                    return sub(arg, where);
                }
                case "Fn::Join" -> {
                    if (!arg.isArray() || arg.size() != 2 || !arg.get(1).isArray()) {
                        throw new IllegalStateException("template.yaml: " + where + ": Fn::Join needs [<delimiter>, [<values>]]");
                    }
                    List<String> parts = new ArrayList<>();
                    arg.get(1).forEach(a -> parts.add(text(a, where)));
                    return String.join(arg.get(0).asText(), parts);
                }
                default -> {
                    // fall through to the error below
                }
            }
        }
        String what = node.isObject() && node.size() > 0 ? "intrinsic or map " + fieldNames(node) : node.getNodeType().toString().toLowerCase(Locale.ROOT);
        throw new IllegalStateException("template.yaml: " + where + ": unsupported " + what
                + " (the local stack resolves Ref, Fn::GetAtt, Fn::Sub and Fn::Join)");
    }

    private static List<String> fieldNames(JsonNode n) {
        List<String> out = new ArrayList<>();
        for (Iterator<String> it = n.fieldNames(); it.hasNext(); ) {
            out.add(it.next());
        }
        return out;
    }

    private String ref(String name, String where) {
        if (parameters.containsKey(name)) {
            return parameters.get(name);
        }
        switch (name) {
            case "AWS::Region" -> {
                return REGION;
            }
            case "AWS::AccountId" -> {
                return ACCOUNT;
            }
            case "AWS::Partition" -> {
                return "aws";
            }
            case "AWS::StackName" -> {
                return STACK_NAME;
            }
            case "AWS::URLSuffix" -> {
                return "amazonaws.com";
            }
            default -> {
                // a resource
            }
        }
        String type = resourceType(name);
        if (type == null) {
            throw new IllegalStateException("template.yaml: " + where + ": {Ref: " + name + "} names no parameter or resource");
        }
        return switch (type) {
            case "AWS::DynamoDB::Table" -> localTableName(name);
            case "AWS::Serverless::StateMachine", "AWS::StepFunctions::StateMachine" -> stateMachineArn(resourceName(name));
            case "AWS::Events::EventBus" -> resourceName(name);   // Ref of an event bus is its name
            case "AWS::IAM::Role" -> roleName(name);
            case "AWS::KMS::Key" -> localKmsKeyId(name);   // Ref of a key is its key id
            case "AWS::S3::Bucket" -> ""; // no S3 locally: a bucket variable is unset (the demo keeps file copies)
            default -> name; // functions (name = logical id locally), HTTP API, topic
        };
    }

    private String getAtt(String id, String attribute, String where) {
        String type = resourceType(id);
        if (type == null) {
            throw new IllegalStateException("template.yaml: " + where + ": Fn::GetAtt names no resource " + id);
        }
        String key = type + "." + attribute;
        return switch (key) {
            case "AWS::Serverless::Function.Arn", "AWS::Lambda::Function.Arn" -> functionArn(id);
            case "AWS::Serverless::StateMachine.Arn", "AWS::StepFunctions::StateMachine.Arn" -> stateMachineArn(resourceName(id));
            case "AWS::Serverless::StateMachine.Name", "AWS::StepFunctions::StateMachine.Name" -> resourceName(id);
            case "AWS::DynamoDB::Table.Arn" -> "arn:aws:dynamodb:" + REGION + ":" + ACCOUNT + ":table/" + localTableName(id);
            case "AWS::Events::EventBus.Arn" -> "arn:aws:events:" + REGION + ":" + ACCOUNT + ":event-bus/" + resourceName(id);
            case "AWS::Events::EventBus.Name" -> resourceName(id);
            case "AWS::Events::Rule.Arn" -> "arn:aws:events:" + REGION + ":" + ACCOUNT + ":rule/" + id;
            case "AWS::IAM::Role.Arn" -> "arn:aws:iam::" + ACCOUNT + ":role/" + roleName(id);
            case "AWS::KMS::Key.Arn" -> kmsKeyArn(localKmsKeyId(id));
            case "AWS::KMS::Key.KeyId" -> localKmsKeyId(id);
            default -> throw new IllegalStateException("template.yaml: " + where + ": Fn::GetAtt " + id + "." + attribute
                    + " (" + type + ") is not resolved by the local stack");
        };
    }

    private static final Pattern SUB_VAR = Pattern.compile("\\$\\{(!?)([^}]*)}");

    private String sub(JsonNode arg, String where) {
        String format;
        Map<String, String> vars = new LinkedHashMap<>();
        if (arg.isTextual()) {
            format = arg.asText();
        } else if (arg.isArray() && arg.size() == 2 && arg.get(0).isTextual()) {
            format = arg.get(0).asText();
            arg.get(1).fields().forEachRemaining(e -> vars.put(e.getKey(), text(e.getValue(), where + " (Fn::Sub " + e.getKey() + ")")));
        } else {
            throw new IllegalStateException("template.yaml: " + where + ": Fn::Sub needs a string or [<string>, {<vars>}]");
        }
        Matcher m = SUB_VAR.matcher(format);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(2).trim();
            String value;
            if (!m.group(1).isEmpty()) {
                value = "${" + m.group(2) + "}";
            } else if (vars.containsKey(name)) {
                value = vars.get(name);
            } else if (name.contains(".") && !name.startsWith("AWS::")) {
                int dot = name.indexOf('.');
                value = getAtt(name.substring(0, dot), name.substring(dot + 1), where);
            } else {
                value = ref(name, where);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }
}
