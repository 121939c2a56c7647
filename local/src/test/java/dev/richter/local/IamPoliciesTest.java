package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.local.IamPolicies.AccessDecision;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * IAM as AWS evaluates identity-based policies, over {@code template.yaml}'s policies with the local names: SAM policy
 * templates expanded as SAM's policy_templates.json writes them, inline statements with {@code Fn::Sub} ARNs,
 * explicit deny over allow over implicit deny, IAM wildcards.
 */
class IamPoliciesTest {
    static final Path ROOT = LocalAwsStack.rootFromEnv();
    static final String ACCT = SamTemplate.ACCOUNT;
    static final String TABLE = "arn:aws:dynamodb:us-east-1:" + ACCT + ":table/";
    static final String RUN_MACHINE = "arn:aws:states:us-east-1:" + ACCT + ":stateMachine:richter-dev-load-test-run";
    static final String RUN_EXECUTION = "arn:aws:states:us-east-1:" + ACCT + ":execution:richter-dev-load-test-run:";

    static IamPolicies template() throws IOException {
        return IamPolicies.of(SamTemplate.load(ROOT, LocalAwsStack.LOCAL_PARAMETER_DEFAULTS));
    }

    @Test
    void dynamoDbPolicyTemplatesGrantTheirActionsOnTheTableAndItsIndexesOnly() throws IOException {
        IamPolicies iam = template();
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "dynamodb:Query", TABLE + "richter-plans/index/byTeam"));
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "dynamodb:PutItem", TABLE + "richter-plans"));
        // DynamoDBReadPolicy: reads, no writes
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "dynamodb:Query", TABLE + "richter-run-metrics"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "dynamodb:PutItem", TABLE + "richter-run-metrics"));
        // no policy names the table at all
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReleaseLeasesFunction", "dynamodb:GetItem", TABLE + "richter-plans"));
        // the template's prefix match: table/richter-runs does not cover table/richter-runs-archive
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReleaseLeasesFunction", "dynamodb:GetItem", TABLE + "richter-runs-archive"));
        // the nightly check stores its results in the registry: PutItem only, beside the read policy
        assertEquals(AccessDecision.ALLOWED, iam.decide("ChecksFunction", "dynamodb:PutItem", TABLE + "richter-registry"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ChecksFunction", "dynamodb:DeleteItem", TABLE + "richter-registry"));
        // the probe calls no AWS API, so its role grants nothing
        // the probe's one grant is CloudWatch's GetMetricData, which has no resource-level permission
        assertEquals(List.of(List.of("cloudwatch:GetMetricData")), iam.principals().get("ProbeFunction").statements().stream()
                .map(IamPolicies.Statement::actions).toList());
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ProbeFunction", "dynamodb:GetItem", TABLE + "richter-runs"));
        // TransactWriteItems is in neither SAM template
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "dynamodb:TransactWriteItems", TABLE + "richter-plans"));
    }

    @Test
    void aDenialReadsAsAwsWritesIt() throws IOException {
        Optional<String> denial = template().denial("ReleaseLeasesFunction", "dynamodb:Query", TABLE + "richter-plans", "ReleaseLeasesFunction");
        assertEquals(Optional.of("User: arn:aws:sts::" + ACCT + ":assumed-role/richter-ReleaseLeasesFunctionRole/ReleaseLeasesFunction is not"
                + " authorized to perform: dynamodb:Query on resource: " + TABLE + "richter-plans because no identity-based policy"
                + " allows the dynamodb:Query action"), denial);
        assertEquals(Optional.empty(), template().denial("ReleaseLeasesFunction", "dynamodb:Query", TABLE + "richter-runs", "ReleaseLeasesFunction"));
    }

    /**
     * A worker that stops on an abort flag it cannot read sets the run's flag (LoadDriver's reportStale), an UpdateItem
     * on the runs table: denied before, so on AWS the other workers and the state machine never heard of it.
     */
    @Test
    void aLoadDriverWorkerMaySetItsRunsAbortFlagAndWriteNothingElseThere() throws IOException {
        IamPolicies iam = template();
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadDriverFunction", "dynamodb:UpdateItem", TABLE + "richter-runs"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("LoadDriverFunction", "dynamodb:PutItem", TABLE + "richter-runs"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("LoadDriverFunction", "dynamodb:DeleteItem", TABLE + "richter-runs"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("LoadDriverFunction", "dynamodb:UpdateItem", TABLE + "richter-plans"));
    }

    /**
     * After a failed report the lease release marks the run FAILED and sets its abort flag (two UpdateItems on the run,
     * {@code RunRelease.release}) before releasing the leases: without this grant the release failed there and the
     * leases stayed held until they lapsed (seen when a report failed in a ShopITSuite run).
     */
    @Test
    void theLeaseReleaseMayMarkARunWhoseReportFailedAndWriteNothingElseThere() throws IOException {
        IamPolicies iam = template();
        assertEquals(AccessDecision.ALLOWED, iam.decide("ReleaseLeasesFunction", "dynamodb:UpdateItem", TABLE + "richter-runs"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReleaseLeasesFunction", "dynamodb:PutItem", TABLE + "richter-runs"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReleaseLeasesFunction", "dynamodb:DeleteItem", TABLE + "richter-runs"));
    }

    @Test
    void thePlanApiMayStartRunsAndDescribeTheirExecutionsButNotStopThem() throws IOException {
        IamPolicies iam = template();
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "states:StartExecution", RUN_MACHINE));
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "states:DescribeExecution", RUN_EXECUTION + "run-1"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "states:StopExecution", RUN_EXECUTION + "run-1"));
        // StepFunctionsExecutionPolicy is StartExecution on the state machine alone
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReportFunction", "states:DescribeExecution", RUN_EXECUTION + "run-1"));
    }

    /** The plan API's iam:PassRole holds only where its Condition does: the role handed to EventBridge Scheduler. */
    @Test
    void thePlanApiPassesTheScheduledStartRoleToSchedulerOnly() throws IOException {
        IamPolicies iam = template();
        String role = iam.principals().get("ScheduledStartRole").roleArn();
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "iam:PassRole", role,
                Map.of("iam:PassedToService", "scheduler.amazonaws.com")));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "iam:PassRole", role,
                Map.of("iam:PassedToService", "lambda.amazonaws.com")));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "iam:PassRole", role));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "iam:PassRole",
                "arn:aws:iam::" + ACCT + ":role/other", Map.of("iam:PassedToService", "scheduler.amazonaws.com")));
    }

    @Test
    void theRunStateMachineMayInvokeItsTasksFunctionsAndRunItsDistributedMapChildren() throws IOException {
        IamPolicies iam = template();
        String fn = "arn:aws:lambda:us-east-1:" + ACCT + ":function:";
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadTestRunStateMachine", "lambda:InvokeFunction", fn + "ChecksFunction"));
        // LambdaInvokePolicy's resource is function:<name>*, so qualified ARNs are covered
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadTestRunStateMachine", "lambda:InvokeFunction", fn + "ChecksFunction:live"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("LoadTestRunStateMachine", "lambda:InvokeFunction", fn + "PlanApiFunction"));
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadTestRunStateMachine", "states:StartExecution", RUN_MACHINE));
        String child = "arn:aws:states:us-east-1:" + ACCT + ":execution:richter-dev-load-test-run/Legs:0f3c";
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadTestRunStateMachine", "states:DescribeExecution", child));
        assertEquals(AccessDecision.ALLOWED, iam.decide("LoadTestRunStateMachine", "states:StopExecution", child));
        // EventBridge Scheduler: SAM's role of the nightly schedule may start that machine and nothing else
        String nightly = "arn:aws:states:us-east-1:" + ACCT + ":stateMachine:NightlyCheckStateMachine";
        assertEquals(AccessDecision.ALLOWED, iam.decide("NightlyCheckStateMachineNightlyRole", "states:StartExecution", nightly));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("NightlyCheckStateMachineNightlyRole", "states:StartExecution", RUN_MACHINE));
        assertEquals(AccessDecision.ALLOWED, iam.decide("LinkBuilderFunctionRebuildRole", "lambda:InvokeFunction", fn + "LinkBuilderFunction"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("LinkBuilderFunctionRebuildRole", "lambda:InvokeFunction", fn + "ReportFunction"));
        // the nightly machine has no Distributed Map grant
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("NightlyCheckStateMachine", "states:StartExecution", RUN_MACHINE));
    }

    @Test
    void eventBridgeAndS3TemplatesNameTheBusAndTheBucket() throws IOException {
        IamPolicies iam = template();
        assertEquals(AccessDecision.ALLOWED, iam.decide("ReportFunction", "events:PutEvents",
                "arn:aws:events:us-east-1:" + ACCT + ":event-bus/richter-dev"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReportFunction", "events:PutEvents",
                "arn:aws:events:us-east-1:" + ACCT + ":event-bus/default"));
        assertEquals(AccessDecision.ALLOWED, iam.decide("ReportFunction", "s3:PutObject", "arn:aws:s3:::richter-reports-bucket/reports/r1/report.json"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("ReportFunction", "s3:GetObject", "arn:aws:s3:::richter-reports-bucket/reports/r1/report.json"));
        assertEquals(AccessDecision.ALLOWED, iam.decide("PlanApiFunction", "s3:GetObject", "arn:aws:s3:::richter-reports-bucket/reports/r1/report.json"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("PlanApiFunction", "s3:PutObject", "arn:aws:s3:::richter-reports-bucket/reports/r1/report.json"));
    }

    static final String RULES = """
            Resources:
              Fn:
                Type: AWS::Serverless::Function
                Properties:
                  Handler: x.Y::handleRequest
                  Policies:
                    - Statement:
                        - Effect: Allow
                          Action: ["dynamodb:*", "s3:Get?bject"]
                          Resource: "*"
                        - Effect: Deny
                          Action: dynamodb:DeleteItem
                          Resource: {"Fn::Sub": "arn:${AWS::Partition}:dynamodb:${AWS::Region}:${AWS::AccountId}:table/${OrdersTable}"}
                        - Effect: Allow
                          NotAction: [sqs:*]
                          Resource: "arn:aws:sns:*:*:alerts-*"
                        - Effect: Deny
                          Action: sns:Publish
                          NotResource: ["arn:aws:sns:*:*:alerts-*"]
                        - Effect: Allow
                          Action: iam:PassRole
                          Resource: {"Fn::GetAtt": [SchedulerRole, Arn]}
              OrdersTable:
                Type: AWS::DynamoDB::Table
                Properties: {}
              SchedulerRole:
                Type: AWS::IAM::Role
                Properties:
                  Policies:
                    - PolicyName: start
                      PolicyDocument:
                        Statement:
                          - Effect: Allow
                            Action: states:StartExecution
                            Resource: {Ref: Machine}
              Machine:
                Type: AWS::Serverless::StateMachine
                Properties:
                  DefinitionUri: m.json
                  Name: machine-one
            """;

    @Test
    void explicitDenyWinsAndWildcardsNotActionAndNotResourceReadAsInIam(@TempDir Path dir) throws IOException {
        Files.writeString(dir.resolve("template.yaml"), RULES);
        IamPolicies iam = IamPolicies.of(SamTemplate.load(dir));
        String table = TABLE + "richter-orders";
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "dynamodb:PutItem", table));
        assertEquals(AccessDecision.EXPLICIT_DENY, iam.decide("Fn", "dynamodb:DeleteItem", table), "explicit deny over the wildcard allow");
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "dynamodb:DeleteItem", TABLE + "other"), "the deny names one table");
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "DynamoDB:getitem", table), "actions compare case-insensitively");
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "s3:GetObject", "arn:aws:s3:::b/k"), "? is one character");
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("Fn", "s3:GetObjectAcl", "arn:aws:s3:::b/k"));
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "sns:Publish", "arn:aws:sns:us-east-1:1:alerts-oncall"), "NotAction sqs:*");
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("Fn", "sqs:SendMessage", "arn:aws:sns:us-east-1:1:alerts-oncall"));
        assertEquals(AccessDecision.EXPLICIT_DENY, iam.decide("Fn", "sns:Publish", "arn:aws:sns:us-east-1:1:other"), "NotResource deny");
        assertEquals(AccessDecision.EXPLICIT_DENY, iam.decide("Fn", "sns:Publish", "arn:aws:sns:us-east-1:1:ALERTS-oncall"),
                "resources compare case-sensitively: ALERTS-oncall is outside alerts-*, so the NotResource deny applies");
        assertTrue(iam.denial("Fn", "dynamodb:DeleteItem", table, "Fn").orElseThrow()
                .endsWith("on resource: " + table + " with an explicit deny in an identity-based policy"));
        // a role of the template (e.g. EventBridge Scheduler's) is a principal too; Ref to a named machine is its ARN
        assertEquals(AccessDecision.ALLOWED, iam.decide("SchedulerRole", "states:StartExecution",
                "arn:aws:states:us-east-1:" + ACCT + ":stateMachine:machine-one"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("SchedulerRole", "states:StartExecution",
                "arn:aws:states:us-east-1:" + ACCT + ":stateMachine:Machine"));
        assertEquals("arn:aws:iam::" + ACCT + ":role/richter-SchedulerRole", iam.principals().get("SchedulerRole").roleArn());
        // a function may pass that role (Fn::GetAtt [Role, Arn] resolves to the same ARN)
        assertEquals(AccessDecision.ALLOWED, iam.decide("Fn", "iam:PassRole", "arn:aws:iam::" + ACCT + ":role/richter-SchedulerRole"));
        assertEquals(AccessDecision.IMPLICIT_DENY, iam.decide("Fn", "iam:PassRole", "arn:aws:iam::" + ACCT + ":role/other"));
    }

    @Test
    void whatTheLocalStackCannotEvaluateIsRefusedNamingWhere(@TempDir Path dir) throws IOException {
        Map<String, String> cases = Map.of(
                "- SQSPollerPolicy: {QueueName: q}", "Fn.Policies[0]: policy template SQSPollerPolicy is not known",
                "- AWSLambdaExecute", "Fn.Policies[0]: the managed policy AWSLambdaExecute is not evaluated",
                "- DynamoDBCrudPolicy: {Table: t}", "Fn.Policies[0].DynamoDBCrudPolicy: parameter TableName is missing",
                "- Statement: [{Effect: Allow, Action: s3:GetObject, Resource: '*', Condition: {Bool: {aws:SecureTransport: true}}}]",
                "Fn.Policies[0].Statement[0].Condition.Bool: the local stack's IAM evaluates only [StringEquals, StringLike]");
        for (var c : cases.entrySet()) {
            Files.writeString(dir.resolve("template.yaml"), """
                    Resources:
                      Fn:
                        Type: AWS::Serverless::Function
                        Properties:
                          Handler: x.Y::handleRequest
                          Policies:
                            %s
                    """.formatted(c.getKey()));
            SamTemplate t = SamTemplate.load(dir);
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> IamPolicies.of(t), c.getKey());
            assertTrue(e.getMessage().contains(c.getValue()), e.getMessage());
        }
    }

    @Test
    void wildcardMatchesAcrossSegmentsAndNothingElse() {
        assertTrue(IamPolicies.wildcard("arn:aws:states:*:*:execution:m/*", "arn:aws:states:r:1:execution:m/Legs:abc", false));
        assertFalse(IamPolicies.wildcard("arn:aws:states:*:*:execution:m/*", "arn:aws:states:r:1:execution:m:abc", false));
        assertTrue(IamPolicies.wildcard("a.b+c(d)", "a.b+c(d)", false), "regex characters are literal");
        assertFalse(IamPolicies.wildcard("a.b", "axb", false));
    }
}
