package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.TableNames;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The template and the ASL files agree, and the ASL passes asl-validator; parameters, intrinsics,
 * timeouts, memory and environments resolve as CloudFormation/SAM resolve them.
 */
class SamTemplateTest {
    static final Path ROOT = LocalAwsStack.rootFromEnv();

    static final String FIXTURE = """
            Parameters:
              WorkerTimeoutSeconds: {Type: Number, Default: 15, MinValue: 1, MaxValue: 900}
              Stage: {Type: String, Default: dev, AllowedValues: [dev, prod]}
              Empty: {Type: String, Default: ""}
            Globals:
              Function:
                Timeout: 60
                MemorySize: 1024
                Environment:
                  Variables:
                    THINGS_TABLE: {Ref: ThingsTable}
                    EVENT_BUS_NAME: {Ref: Bus}
                    STAGE: {Ref: Stage}
                    LABEL: {"Fn::Sub": "richter-${Stage}-${AWS::Region}"}
                    SHARED: global
                    NUMBER: 42
            Resources:
              WorkerFunction:
                Type: AWS::Serverless::Function
                Properties:
                  Handler: dev.example.Worker::handleRequest
                  Timeout: {Ref: WorkerTimeoutSeconds}
                  MemorySize: 1769
                  Environment:
                    Variables:
                      SHARED: own
                      MACHINE_ARN: {Ref: Machine}
                      WORKER_ARN: {"Fn::GetAtt": [WorkerFunction, Arn]}
              PlainFunction:
                Type: AWS::Serverless::Function
                Properties:
                  Handler: dev.example.Plain
              ThingsTable:
                Type: AWS::DynamoDB::Table
                Properties:
                  AttributeDefinitions: [{AttributeName: id, AttributeType: S}]
                  KeySchema: [{AttributeName: id, KeyType: HASH}]
              Bus:
                Type: AWS::Events::EventBus
                Properties: {Name: {"Fn::Sub": "richter-${Stage}"}}
              Machine:
                Type: AWS::Serverless::StateMachine
                Properties:
                  DefinitionUri: machine.asl.json
                  DefinitionSubstitutions:
                    WorkerArn: {"Fn::GetAtt": [WorkerFunction, Arn]}
                    WorkerTimeout: {Ref: WorkerTimeoutSeconds}
            """;

    static Path fixture(Path dir, String template) throws IOException {
        Files.writeString(dir.resolve("template.yaml"), template);
        Files.writeString(dir.resolve("machine.asl.json"),
                "{\"StartAt\":\"W\",\"States\":{\"W\":{\"Type\":\"Task\",\"Resource\":\"${WorkerArn}\",\"TimeoutSeconds\":${WorkerTimeout},\"End\":true}}}");
        return dir;
    }

    static SamTemplate.FunctionDef function(SamTemplate t, String id) {
        return t.functions().stream().filter(f -> f.logicalId().equals(id)).findFirst().orElseThrow();
    }

    @Test
    void timeoutAndMemoryFallBackFromTheFunctionToGlobalsToAwsDefaults(@TempDir Path dir) throws IOException {
        SamTemplate t = SamTemplate.load(fixture(dir, FIXTURE));
        SamTemplate.FunctionDef worker = function(t, "WorkerFunction");
        assertEquals(15, worker.timeoutS(), "the function's Timeout, a Ref to a parameter's Default");
        assertEquals(1769, worker.memoryMb());
        SamTemplate.FunctionDef plain = function(t, "PlainFunction");
        assertEquals(60, plain.timeoutS(), "Globals.Function.Timeout");
        assertEquals(1024, plain.memoryMb(), "Globals.Function.MemorySize");
        assertEquals("dev.example.Plain", plain.handlerClass());

        Path bare = dir.resolve("bare");
        Files.createDirectories(bare);
        Files.writeString(bare.resolve("template.yaml"), """
                Resources:
                  F: {Type: AWS::Serverless::Function, Properties: {Handler: a.B::handleRequest}}
                """);
        SamTemplate.FunctionDef f = SamTemplate.load(bare).functions().get(0);
        assertEquals(3, f.timeoutS(), "AWS's default timeout");
        assertEquals(128, f.memoryMb(), "AWS's default memory");
        assertEquals(Map.of(), f.environment());
    }

    @Test
    void parameterOverridesReplaceDefaultsEverywhereTheyAreReferenced(@TempDir Path dir) throws IOException {
        SamTemplate t = SamTemplate.load(fixture(dir, FIXTURE), Map.of("WorkerTimeoutSeconds", "5", "Stage", "prod"));
        assertEquals(5, function(t, "WorkerFunction").timeoutS());
        assertEquals("prod", function(t, "PlainFunction").environment().get("STAGE"));
        assertEquals(Map.of("WorkerTimeoutSeconds", "5", "Stage", "prod", "Empty", ""), t.parameters());
        assertEquals(15, function(t.withParameterOverrides(Map.of()), "WorkerFunction").timeoutS(), "withParameterOverrides replaces");
        assertEquals(7, function(SamTemplate.load(dir).withParameterOverrides(Map.of("WorkerTimeoutSeconds", "7")), "WorkerFunction").timeoutS());
        SamTemplate.StateMachineDef sm = t.stateMachines().get(0);
        assertEquals(Map.of("WorkerArn", "WorkerFunction"), sm.substitutionFunctions());
        assertEquals(Map.of("WorkerTimeout", "5"), sm.substitutionValues());
        assertTrue(t.substitutedDefinition(sm).contains("\"TimeoutSeconds\":5,"), t.substitutedDefinition(sm));
        assertTrue(t.substitutedDefinition(sm).contains(SamTemplate.functionArn("WorkerFunction")));
    }

    @Test
    void aRefToAFunctionsAliasIsItsArnQualifiedByAutoPublishAlias(@TempDir Path dir) throws IOException {
        Path withAlias = dir.resolve("alias");
        Files.createDirectories(withAlias);
        Files.writeString(withAlias.resolve("m.asl.json"), "{\"A\": \"${Own}\", \"B\": \"${FromGlobals}\"}");
        Files.writeString(withAlias.resolve("template.yaml"), """
                Globals:
                  Function: {AutoPublishAlias: live}
                Resources:
                  OwnFunction: {Type: AWS::Serverless::Function, Properties: {Handler: a.B::handleRequest, AutoPublishAlias: blue}}
                  PlainFunction: {Type: AWS::Serverless::Function, Properties: {Handler: a.C::handleRequest}}
                  M:
                    Type: AWS::Serverless::StateMachine
                    Properties:
                      DefinitionUri: m.asl.json
                      DefinitionSubstitutions:
                        Own: {Ref: OwnFunction.Alias}
                        FromGlobals: {Ref: PlainFunction.Alias}
                """);
        SamTemplate t = SamTemplate.load(withAlias);
        SamTemplate.StateMachineDef sm = t.stateMachines().get(0);
        assertEquals(Map.of("Own", "OwnFunction:blue", "FromGlobals", "PlainFunction:live"), sm.substitutionFunctions());
        assertEquals("{\"A\": \"" + SamTemplate.functionArn("OwnFunction") + ":blue\", \"B\": \""
                + SamTemplate.functionArn("PlainFunction") + ":live\"}", t.substitutedDefinition(sm));

        Files.writeString(withAlias.resolve("template.yaml"), Files.readString(withAlias.resolve("template.yaml"))
                .replace("Globals:\n  Function: {AutoPublishAlias: live}\n", ""));
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SamTemplate.load(withAlias).stateMachines());
        assertTrue(e.getMessage().contains("M.DefinitionSubstitutions.FromGlobals: Ref PlainFunction.Alias needs AutoPublishAlias"),
                e.getMessage());
    }

    @Test
    void environmentMergesGlobalsWithTheFunctionsOwnAndResolvesRefs(@TempDir Path dir) throws IOException {
        SamTemplate t = SamTemplate.load(fixture(dir, FIXTURE));
        Map<String, String> env = function(t, "WorkerFunction").environment();
        assertEquals("own", env.get("SHARED"), "the function's variable wins over Globals'");
        assertEquals("richter-things", env.get("THINGS_TABLE"), "Ref to a table: the local table name");
        assertEquals("richter-dev", env.get("EVENT_BUS_NAME"), "Ref to an event bus: its name, as on AWS");
        assertEquals(SamTemplate.stateMachineArn("Machine"), env.get("MACHINE_ARN"), "Ref to a state machine: its ARN, as on AWS");
        assertEquals(SamTemplate.functionArn("WorkerFunction"), env.get("WORKER_ARN"));
        assertEquals("dev", env.get("STAGE"));
        assertEquals("richter-dev-us-east-1", env.get("LABEL"), "Fn::Sub with a parameter and a pseudo parameter");
        assertEquals("42", env.get("NUMBER"));
        assertEquals("global", function(t, "PlainFunction").environment().get("SHARED"));
        assertFalse(function(t, "PlainFunction").environment().containsKey("MACHINE_ARN"));
    }

    @Test
    void anUnknownOverrideIsAnErrorNamingIt(@TempDir Path dir) throws IOException {
        fixture(dir, FIXTURE);
        var e = assertThrows(IllegalArgumentException.class,
                () -> SamTemplate.load(dir, Map.of("WorkerTimeoutSecs", "5", "Stage", "dev", "Nope", "x")));
        assertTrue(e.getMessage().contains("[Nope, WorkerTimeoutSecs]"), e.getMessage());
        assertFalse(e.getMessage().contains("[Nope, Stage"), e.getMessage());
        SamTemplate t = SamTemplate.load(dir);
        assertThrows(IllegalArgumentException.class, () -> t.withParameterOverrides(Map.of("Nope", "x")));
    }

    @Test
    void overridesMustMeetTheParameterConstraintsAndEveryParameterNeedsAValue(@TempDir Path dir) throws IOException {
        fixture(dir, FIXTURE);
        var notNumber = assertThrows(IllegalArgumentException.class, () -> SamTemplate.load(dir, Map.of("WorkerTimeoutSeconds", "fast")));
        assertTrue(notNumber.getMessage().contains("WorkerTimeoutSeconds"), notNumber.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SamTemplate.load(dir, Map.of("WorkerTimeoutSeconds", "901")));
        var notAllowed = assertThrows(IllegalArgumentException.class, () -> SamTemplate.load(dir, Map.of("Stage", "qa")));
        assertTrue(notAllowed.getMessage().contains("Stage") && notAllowed.getMessage().contains("[dev, prod]"), notNumber.getMessage());

        Path noDefault = dir.resolve("nodefault");
        Files.createDirectories(noDefault);
        Files.writeString(noDefault.resolve("template.yaml"), "Parameters:\n  Secret: {Type: String}\nResources: {}\n");
        var missing = assertThrows(IllegalArgumentException.class, () -> SamTemplate.load(noDefault));
        assertTrue(missing.getMessage().contains("[Secret]"), missing.getMessage());
        assertEquals("s", SamTemplate.load(noDefault, Map.of("Secret", "s")).parameters().get("Secret"));
    }

    @Test
    void aTimeoutOutsideAwsRangeOrAnUnresolvableValueIsAnErrorNamingWhere(@TempDir Path dir) throws IOException {
        fixture(dir, FIXTURE.replace("MemorySize: 1769", "MemorySize: 10241"));
        var memory = assertThrows(IllegalStateException.class, () -> SamTemplate.load(dir).functions());
        assertTrue(memory.getMessage().contains("WorkerFunction.MemorySize"), memory.getMessage());

        fixture(dir, FIXTURE.replace("Timeout: 60", "Timeout: 901"));
        var timeout = assertThrows(IllegalStateException.class, () -> SamTemplate.load(dir).functions());
        assertTrue(timeout.getMessage().contains("Globals.Function.Timeout") && timeout.getMessage().contains("1..900"), timeout.getMessage());

        fixture(dir, FIXTURE.replace("SHARED: own", "SHARED: {Ref: Nothing}"));
        var ref = assertThrows(IllegalStateException.class, () -> SamTemplate.load(dir).functions());
        assertTrue(ref.getMessage().contains("WorkerFunction.Environment.Variables.SHARED") && ref.getMessage().contains("Nothing"),
                ref.getMessage());

        fixture(dir, FIXTURE.replace("SHARED: own", "SHARED: {\"Fn::If\": [c, a, b]}"));
        var intrinsic = assertThrows(IllegalStateException.class, () -> SamTemplate.load(dir).functions());
        assertTrue(intrinsic.getMessage().contains("Fn::If"), intrinsic.getMessage());
    }

    @Test
    void theRealTemplateResolvesTimeoutsMemoryAndEnvironment() throws IOException {
        SamTemplate t = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        SamTemplate.FunctionDef loadDriver = function(t, "LoadDriverFunction");
        assertEquals(900, loadDriver.timeoutS(), "LoadDriverFunction's Timeout");
        assertEquals(1769, loadDriver.memoryMb());
        SamTemplate.FunctionDef api = function(t, "PlanApiFunction");
        assertEquals(29, api.timeoutS());
        assertEquals(1024, api.memoryMb(), "Globals.Function.MemorySize");
        assertEquals("richter-runs", api.environment().get("RUNS_TABLE"));
        assertEquals("richter-run-metrics", api.environment().get("RUN_METRICS_TABLE"));
        assertEquals(SamTemplate.stateMachineArn("richter-dev-load-test-run"), api.environment().get("LOAD_TEST_RUN_STATE_MACHINE_ARN"));
        for (SamTemplate.FunctionDef f : t.functions()) {
            assertTrue(f.timeoutS() >= 1 && f.timeoutS() <= 900, f.logicalId());
            assertFalse(f.environment().getOrDefault("EVENT_BUS_NAME", "").isBlank(), f.logicalId() + ": EVENT_BUS_NAME from Globals");
        }
        // one JVM can hold every function's environment (no name with two values)
        LocalAwsStack.functionProperties(t.functions(), LocalLimits.AWS, name -> null);
    }

    @Test
    void theLoadDriverTimeoutParameterWhenTheTemplateDeclaresIt() throws IOException {
        SamTemplate t = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        Assumptions.assumeTrue(t.parameters().containsKey("LoadDriverTimeoutSeconds"), "template.yaml has no LoadDriverTimeoutSeconds yet");
        Map<String, String> overrides = new java.util.HashMap<>(LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        overrides.put("LoadDriverTimeoutSeconds", "15");
        assertEquals(15, function(t.withParameterOverrides(overrides), "LoadDriverFunction").timeoutS());
    }

    @Test
    void everyDefinitionSubstitutionNamesAFunctionOfTheTemplateAndEveryPlaceholderIsSubstituted() throws IOException {
        SamTemplate t = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        Set<String> functions = t.functions().stream().map(SamTemplate.FunctionDef::logicalId).collect(Collectors.toSet());
        assertEquals(2, t.stateMachines().size());
        for (SamTemplate.StateMachineDef sm : t.stateMachines()) {
            for (var e : sm.substitutionFunctions().entrySet()) {
                // every task invokes the function's published alias, where SnapStart applies
                String[] qualified = e.getValue().split(":");
                assertTrue(functions.contains(qualified[0]), sm.logicalId() + ": " + e.getKey() + " -> " + e.getValue());
                assertEquals(List.of(qualified[0], "live"), List.of(qualified), sm.logicalId() + ": " + e.getKey());
            }
            String asl = Files.readString(sm.definitionFile());
            Matcher m = Pattern.compile("\\$\\{([A-Za-z0-9]+)}").matcher(asl);
            Set<String> used = new TreeSet<>();
            while (m.find()) {
                used.add(m.group(1));
            }
            assertEquals(sm.substitutionNames(), used, sm.logicalId() + ": substitutions vs placeholders");
            String substituted = t.substitutedDefinition(sm);
            assertFalse(substituted.contains("${"));
            assertFalse(asl.contains("arn:aws:states:::lambda:invoke"), "no optimized Lambda integration (local runner lacks it)");
            assertFalse(asl.contains("JSONata"), "JSONPath only");
        }
    }

    @Test
    void everyHandlerClassExistsAndEveryRouteOfTheApiIsDeclared() throws Exception {
        SamTemplate t = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        for (SamTemplate.FunctionDef f : t.functions()) {
            Class<?> c = Class.forName(f.handlerClass());
            assertTrue(com.amazonaws.services.lambda.runtime.RequestStreamHandler.class.isAssignableFrom(c), f.handlerClass());
        }
        Set<String> routes = t.routes().stream().map(SamTemplate.Route::routeKey).collect(Collectors.toSet());
        Set<String> expected = new TreeSet<>(dev.richter.api.Routes.ALL);
        expected.add("$default");
        assertEquals(expected, new TreeSet<>(routes), "template.yaml declares exactly the routes the function dispatches");
        for (SamTemplate.Route r : t.routes()) {
            boolean open = dev.richter.api.Routes.PUBLIC.contains(r.routeKey());
            assertEquals(open ? "" : "OidcAuthorizer", r.authorizer(), r.routeKey() + ": only the public routes are open");
        }
        SamTemplate.JwtAuthorizerDef jwt = t.jwtAuthorizers().get("OidcAuthorizer");
        assertEquals(LocalIdentityProvider.ISSUER, jwt.issuer(), "issuer from the OidcIssuer parameter");
        assertEquals(List.of(LocalIdentityProvider.AUDIENCE), jwt.audiences(), "audience from the OidcAudience parameter");
        assertEquals("authorization", jwt.headerName());
    }

    @Test
    void theOpenApiDocumentDescribesExactlyTheRoutes() throws Exception {
        JsonNode doc = Json.MAPPER.readTree(SamTemplate.class.getResourceAsStream("/openapi.json"));
        assertEquals("3.1.0", doc.path("openapi").asText());
        Set<String> described = new TreeSet<>();
        doc.path("paths").properties().forEach(p -> p.getValue().fieldNames().forEachRemaining(m -> {
            if (!m.equals("parameters")) {
                described.add(m.toUpperCase(java.util.Locale.ROOT) + " " + p.getKey());
            }
        }));
        assertEquals(new TreeSet<>(dev.richter.api.Routes.ALL), described);
    }

    @Test
    void localTableNamesAreTheNamesTheFunctionsDefaultTo() throws IOException {
        SamTemplate t = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        Set<String> local = t.tables().stream().map(r -> r.tableName()).collect(Collectors.toSet());
        TableNames d = TableNames.fromEnv();
        for (String name : List.of(d.registry(), d.plans(), d.runs(), d.runMetrics(), d.verdicts(), d.links(), d.reports(), d.audit(),
                d.leases())) {
            assertTrue(local.contains(name), name + " in " + local);
        }
        assertEquals("richter-run-metrics", SamTemplate.localTableName("RunMetricsTable"));
        assertEquals("richter-run-metrics", t.tableNames().get("RunMetricsTable"), "a fault may name a table either way");
        assertEquals(local, Set.copyOf(t.tableNames().values()));
    }

    @Test
    void aslFilesPassAslValidatorAndTheValidatorRejectsTheCorpusInvalidMachines() throws Exception {
        List<String> ours = new ArrayList<>();
        try (var files = Files.list(ROOT.resolve("statemachines"))) {
            files.filter(p -> p.toString().endsWith(".asl.json")).forEach(p -> ours.add(p.toString()));
        }
        assertEquals(2, ours.size());
        assertEquals(0, validate(ours), "our ASL must be valid");
        Path invalid = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"), "asl/invalid-missing-terminal.json");
        assertNotEquals(0, validate(List.of(invalid.toString())), "the validator must reject an invalid machine");
    }

    private static int validate(List<String> files) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("node", "validate-asl.cjs"));
        cmd.addAll(files);
        Process p = new ProcessBuilder(cmd).directory(ROOT.resolve("local/node").toFile()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        int code = p.waitFor();
        System.out.println(out);
        return code;
    }

    @Test
    void theReportsBucketIsPrivateEncryptedRetainedAndUnsetLocally() throws Exception {
        JsonNode doc = Json.MAPPER.readTree(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory().createParser(ROOT.resolve("template.yaml").toFile()));
        JsonNode bucket = doc.path("Resources").path("ReportsBucket");
        assertEquals("AWS::S3::Bucket", bucket.path("Type").asText());
        assertEquals("Retain", bucket.path("DeletionPolicy").asText(), "reports outlive the stack");
        JsonNode block = bucket.path("Properties").path("PublicAccessBlockConfiguration");
        for (String k : List.of("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets")) {
            assertTrue(block.path(k).asBoolean(), k);
        }
        assertFalse(bucket.path("Properties").path("BucketEncryption").isMissingNode());
        String policies = doc.path("Resources").path("ReportFunction").path("Properties").path("Policies").toString();
        assertTrue(policies.contains("{\"S3WritePolicy\":{\"BucketName\":{\"Ref\":\"ReportsBucket\"}}}"), policies);
        assertEquals("", function(SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS), "ReportFunction").environment().get("REPORTS_BUCKET"),
                "no S3 locally: the report function keeps the table item only");
        String apiPolicies = doc.path("Resources").path("PlanApiFunction").path("Properties").path("Policies").toString();
        assertTrue(apiPolicies.contains("{\"S3ReadPolicy\":{\"BucketName\":{\"Ref\":\"ReportsBucket\"}}}"), apiPolicies);
        assertEquals("{\"Ref\":\"ReportsBucket\"}", doc.path("Resources").path("PlanApiFunction").path("Properties")
                .path("Environment").path("Variables").path("REPORTS_BUCKET").toString(), "the API reads the whole report from the bucket");
    }

    private static JsonNode realTemplate() throws IOException {
        return Json.MAPPER.readTree(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory().createParser(ROOT.resolve("template.yaml").toFile()));
    }

    private static Map<String, JsonNode> resourcesOfType(JsonNode doc, String type) {
        Map<String, JsonNode> out = new java.util.TreeMap<>();
        doc.path("Resources").properties().forEach(e -> {
            if (type.equals(e.getValue().path("Type").asText())) {
                out.put(e.getKey(), e.getValue());
            }
        });
        return out;
    }

    @Test
    void functionsAndStateMachinesAreTracedAndMetricsHaveTheStageOfTheDeployment() throws IOException {
        JsonNode doc = realTemplate();
        assertEquals("Active", doc.path("Globals").path("Function").path("Tracing").asText());
        resourcesOfType(doc, "AWS::Serverless::StateMachine").forEach((id, sm) ->
                assertTrue(sm.path("Properties").path("Tracing").path("Enabled").asBoolean(), id + " is not traced"));
        assertEquals("Richter", doc.path("Globals").path("Function").path("Environment").path("Variables")
                .path("POWERTOOLS_METRICS_NAMESPACE").asText());
        // the local stack reads the same file, alarms and dashboard included, and resolves the Stage dimension
        SamTemplate local = SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS);
        assertEquals(resourcesOfType(doc, "AWS::Serverless::Function").size(), local.functions().size());
        assertEquals("dev", function(local, "LoadDriverFunction").environment().get("RICHTER_STAGE"));
    }

    @Test
    void errorAndThrottleAlarmsWatchEveryFunctionAndEveryAlarmPagesOnCall() throws IOException {
        JsonNode doc = realTemplate();
        Map<String, JsonNode> alarms = resourcesOfType(doc, "AWS::CloudWatch::Alarm");
        assertEquals(Set.of("AbortLatencyAlarm", "FunctionErrorsAlarm", "ApiFunctionErrorsAlarm", "FunctionThrottlesAlarm",
                "ApiFunctionThrottlesAlarm", "LoadDriverRateErrorAlarm"), alarms.keySet());
        alarms.forEach((id, a) -> assertEquals("[{\"Ref\":\"OnCallTopic\"}]", a.path("Properties").path("AlarmActions").toString(), id));
        Set<String> functions = resourcesOfType(doc, "AWS::Serverless::Function").keySet();
        for (String[] pair : List.of(new String[] {"Errors", "FunctionErrorsAlarm", "ApiFunctionErrorsAlarm"},
                new String[] {"Throttles", "FunctionThrottlesAlarm", "ApiFunctionThrottlesAlarm"})) {
            List<String> watched = new ArrayList<>();
            for (String alarm : List.of(pair[1], pair[2])) {
                for (JsonNode m : alarms.get(alarm).path("Properties").path("Metrics")) {
                    JsonNode metric = m.path("MetricStat").path("Metric");
                    if (!metric.isMissingNode()) {
                        assertEquals("AWS/Lambda", metric.path("Namespace").asText());
                        assertEquals(pair[0], metric.path("MetricName").asText());
                        watched.add(metric.path("Dimensions").get(0).path("Value").path("Ref").asText());
                    }
                }
                assertTrue(alarms.get(alarm).path("Properties").path("Metrics").size() <= 10, "CloudWatch's limit of 10 metrics an alarm");
            }
            assertEquals(new TreeSet<>(functions), new TreeSet<>(watched), pair[0] + ": every function is watched");
            assertEquals(functions.size(), watched.size(), pair[0] + ": no function is watched twice");
        }
        JsonNode rate = alarms.get("LoadDriverRateErrorAlarm").path("Properties");
        assertEquals(1, rate.path("Threshold").asDouble());
        assertEquals(3, rate.path("EvaluationPeriods").asInt());
        assertEquals(3, rate.path("DatapointsToAlarm").asInt());
        assertEquals("ABS(rateError)", rate.path("Metrics").get(0).path("Expression").asText());
        JsonNode rateMetric = rate.path("Metrics").get(1).path("MetricStat").path("Metric");
        assertEquals("RateError", rateMetric.path("MetricName").asText());
        assertEquals("Richter", rateMetric.path("Namespace").asText());
        JsonNode abort = alarms.get("AbortLatencyAlarm").path("Properties");
        assertEquals("AbortLatency", abort.path("MetricName").asText());
        assertEquals(2000, abort.path("Threshold").asDouble());
        assertEquals("Milliseconds", abort.path("Unit").asText());
        // a custom topic policy must let CloudWatch publish the alarms
        assertTrue(doc.path("Resources").path("OnCallTopicPolicy").toString().contains("cloudwatch.amazonaws.com"));
    }

    @Test
    void everyRichterMetricOfTheDashboardAndAlarmsIsOneAFunctionWrites() throws IOException {
        JsonNode doc = realTemplate();
        String body = doc.path("Resources").path("RichterDashboard").path("Properties").path("DashboardBody").path("Fn::Sub").asText();
        JsonNode dashboard = Json.MAPPER.readTree(body.replaceAll("\\$\\{[^}]+}", "x"));
        assertTrue(dashboard.path("widgets").size() >= 8, "a widget per concern");
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("\\[\"Richter\", \"(\\w+)\"").matcher(body);
        while (m.find()) {
            names.add(m.group(1));
        }
        Matcher dot = Pattern.compile("\\[\"\\.\", \"(\\w+)\"").matcher(body);
        while (dot.find()) {
            if (!Set.of("Errors", "Throttles").contains(dot.group(1))) {
                names.add(dot.group(1));
            }
        }
        names.add(resourcesOfType(doc, "AWS::CloudWatch::Alarm").get("AbortLatencyAlarm").path("Properties").path("MetricName").asText());
        assertTrue(names.containsAll(Set.of("Sent", "RateError", "ProbeRoundDuration", "EvidenceToVerdict", "AbortLatency",
                "RunsStarted", "Requests5xx")), names.toString());
        String sources;
        try (var files = Files.walk(ROOT.resolve("functions"))) {
            sources = files.filter(f -> f.toString().endsWith(".java") && f.toString().contains("/src/main/"))
                    .map(f -> {
                        try {
                            return Files.readString(f);
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    }).collect(Collectors.joining("\n"));
        }
        for (String name : names) {
            // names made of a literal prefix and a kind, a state or a status class: FailedProbesHttp, Requests5xx, ...
            String literal = name.replaceFirst("^(FailedProbes|VerdictChanges)\\w+$", "$1").replaceFirst("^Requests\\dxx$", "Requests");
            assertTrue(sources.contains("\"" + literal + "\""), name + " is on the dashboard but no function writes it");
        }
    }
}
