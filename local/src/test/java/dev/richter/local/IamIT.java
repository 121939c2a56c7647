package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.HistoryEvent;

/**
 * The local stack refuses what AWS would refuse, in AWS's words: a copy of {@code template.yaml} with one policy line
 * removed per enforcement path makes the call on that path fail. DynamoDB (the plan API's Crud on the links table: GET
 * /links/entries answers 500), Step Functions (the plan API's DescribeExecution statement: GET /runs/{runId} answers
 * 500, not a plausible status), Lambda invoked from ASL (the run machine's LambdaInvokePolicy of run preparation: the
 * Prepare Task fails with {@code Lambda.AWSLambdaException}) and EventBridge (the report function's
 * EventBridgePutEventsPolicy: Run Completed is not published, counted in {@code EventsFailed}). S3 has no local
 * server; its denial is {@link IamEnforcementTest}'s, and Distributed Map children's is local/node's test.
 */
class IamIT {
    static final Path ROOT = LocalAwsStack.rootFromEnv();
    static final String ACCT = SamTemplate.ACCOUNT;
    static final String SESSION = "arn:aws:sts::" + ACCT + ":assumed-role/richter-";
    static final List<String> LOG = new CopyOnWriteArrayList<>();
    static LocalAwsStack stack;

    @BeforeAll
    static void startWithoutFourPolicyLines() throws Exception {
        String t = Files.readString(ROOT.resolve("template.yaml"));
        t = without(t, "PlanApiFunction", "        - DynamoDBCrudPolicy: {TableName: {Ref: LinksTable}}\n");
        t = without(t, "PlanApiFunction", """
                        - Statement:
                            - Effect: Allow
                              Action: [states:DescribeExecution]
                """);
        t = without(t, "LoadTestRunStateMachine", "        - LambdaInvokePolicy: {FunctionName: {Ref: RunPreparationFunction}}\n");
        t = without(t, "ReportFunction", "        - EventBridgePutEventsPolicy: {EventBusName: {Ref: RichterEventBus}}");
        Path dir = ROOT.resolve("local/target/iam-it");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("template.yaml"), t);
        stack = new LocalAwsStack(ROOT, dir.resolve("stack"), line -> {
            LOG.add(line);
            System.out.println(line);
        }).withTemplate(dir.resolve("template.yaml")).start();
    }

    @AfterAll
    static void stop() {
        if (stack != null) {
            stack.close();
        }
    }

    /**
     * {@code template} with {@code text} removed from the resource {@code resource}; a statement's first lines remove
     * the whole statement (up to the next policy line).
     */
    static String without(String template, String resource, String text) {
        int start = template.indexOf("\n  " + resource + ":\n");
        Matcher next = Pattern.compile("\n  [A-Za-z]+:\n").matcher(template);
        int end = next.find(start + 1) ? next.start() : template.length();
        String section = template.substring(start, end);
        int at = section.indexOf(text);
        assertTrue(at >= 0 && section.indexOf(text, at + 1) < 0, resource + " must hold " + text + " once");
        int stop = at + text.length();
        if (text.contains("- Statement:")) {
            Matcher policy = Pattern.compile("\n        [-#]|\n      [A-Z]").matcher(section);
            stop = policy.find(stop - 1) ? policy.start() + 1 : section.length();
        }
        return template.substring(0, start) + section.substring(0, at) + section.substring(stop) + template.substring(end);
    }

    static ApiClient api(String team) {
        return new ApiClient(LocalAwsStack.apiBaseUrl(), stack.identity().token(team, "it@" + team, Duration.ofHours(1),
                com.nimbusds.jose.JWSAlgorithm.RS256));
    }

    static String denial(String principal, String action, String resource) {
        return "User: " + SESSION + principal + "Role/" + principal + " is not authorized to perform: " + action
                + " on resource: " + resource + " because no identity-based policy allows the " + action + " action";
    }

    static boolean logged(String text) {
        return LOG.stream().anyMatch(l -> l.contains(text));
    }

    @Test
    void aDynamoDbQueryTheRoleDoesNotAllowFailsTheApiCallWithAwsMessage() throws Exception {
        var r = api("team-iam").get("/links/entries");
        assertEquals(500, r.status(), r.body());
        String message = denial("PlanApiFunction", "dynamodb:Query", "arn:aws:dynamodb:us-east-1:" + ACCT + ":table/richter-links");
        assertTrue(logged("IAM DENIED: " + message), "the denial, in AWS's words: " + message + "\n" + LOG);
    }

    @Test
    void aRunWithoutItsPermissionsFailsWhereAwsWouldRefuse() throws Exception {
        ApiClient api = api("team-iam-run");
        try (FakeTarget target = new FakeTarget()) {
            var s = api.post("/services", Json.write(Map.of("name", "iam-svc", "baseUrl", target.baseUrl(), "healthPath", "/actuator/health")));
            assertTrue(s.status() == 201 || s.status() == 200, s.body());
            OwnershipTokens.keep(s.json());
            var p = api.post("/plans", LocalAwsStackTestSupport.plan("iam-svc", 2, 3, List.<double[]>of(new double[] {2, 2})));
            assertEquals(201, p.status(), p.body());
            var start = api.post("/plans/" + p.json().path("planId").asText() + "/runs", "");
            assertEquals(202, start.status(), "StartExecution is granted (StepFunctionsExecutionPolicy): " + start.body());
            String runId = start.json().path("runId").asText();
            String execution = "arn:aws:states:us-east-1:" + ACCT + ":execution:richter-dev-load-test-run:" + runId;

            // Step Functions: DescribeExecution without its statement is a 500, never "executionStatus": "UNKNOWN"
            var run = api.get("/runs/" + runId);
            assertEquals(500, run.status(), run.body());
            assertTrue(logged("IAM DENIED: " + denial("PlanApiFunction", "states:DescribeExecution", execution)), LOG.toString());

            // Lambda from ASL: the Prepare Task fails as Step Functions fails an invoke its role may not make
            try (SfnClient sfn = SfnClient.builder().region(Region.US_EAST_1)
                    .endpointOverride(URI.create(System.getenv("AWS_ENDPOINT_URL_SFN"))).build()) {
                long deadline = System.currentTimeMillis() + 120_000;
                while (sfn.describeExecution(d -> d.executionArn(execution)).status() == ExecutionStatus.RUNNING
                        && System.currentTimeMillis() < deadline) {
                    Thread.sleep(500);
                }
                List<HistoryEvent> history = sfn.getExecutionHistoryPaginator(h -> h.executionArn(execution)).events().stream().toList();
                HistoryEvent failed = history.stream().filter(e -> e.lambdaFunctionFailedEventDetails() != null).findFirst()
                        .orElseThrow(() -> new AssertionError("no LambdaFunctionFailed in " + history));
                assertEquals("Lambda.AWSLambdaException", failed.lambdaFunctionFailedEventDetails().error());
                String invoke = denial("LoadTestRunStateMachine", "lambda:InvokeFunction",
                        "arn:aws:lambda:us-east-1:" + ACCT + ":function:RunPreparationFunction:live");
                String cause = failed.lambdaFunctionFailedEventDetails().cause();
                assertTrue(cause.startsWith(invoke + " (Service: AWSLambda; Status Code: 403; Error Code: AccessDeniedException;"), cause);
            }

            // EventBridge: the report (the Catch's next state) cannot publish Run Completed: logged and counted
            String bus = "arn:aws:events:us-east-1:" + ACCT + ":event-bus/richter-dev";
            long deadline = System.currentTimeMillis() + 60_000;
            while (!logged(denial("ReportFunction", "events:PutEvents", bus)) && System.currentTimeMillis() < deadline) {
                Thread.sleep(500);
            }
            assertTrue(logged("IAM DENIED: " + denial("ReportFunction", "events:PutEvents", bus)), LOG.toString());
            deadline = System.currentTimeMillis() + 30_000;
            while (eventsFailed(runId) < 1 && System.currentTimeMillis() < deadline) {
                Thread.sleep(500);
            }
            assertEquals(1, eventsFailed(runId), "Richter's own metric counts the event the bus refused");
        }
    }

    /** The EventsFailed the report function emitted for the run (EMF lines in the stack's metrics file). */
    static int eventsFailed(String runId) throws Exception {
        int n = 0;
        for (String line : Files.readAllLines(stack.metricsFile())) {
            JsonNode m = Json.read(line, JsonNode.class);
            if (runId.equals(m.path("runId").asText()) && m.has("EventsFailed")) {
                n += m.path("EventsFailed").asInt();
            }
        }
        return n;
    }
}
