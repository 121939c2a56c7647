package dev.richter.local;

import dev.richter.common.Json;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.core.interceptor.SdkExecutionAttribute;
import software.amazon.awssdk.services.dynamodb.model.BatchGetItemRequest;
import software.amazon.awssdk.services.dynamodb.model.BatchWriteItemRequest;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.eventbridge.model.EventBridgeException;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequest;
import software.amazon.awssdk.services.eventbridge.model.PutEventsRequestEntry;
import software.amazon.awssdk.services.kms.model.KmsException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.sfn.model.SfnException;

/**
 * IAM for the functions' AWS SDK v2 clients in the local stack: every call a function makes is checked against the
 * policies {@code template.yaml} gives that function ({@link IamPolicies}) before it is sent, and a call AWS would
 * refuse fails as AWS fails it. Registered as a global SDK interceptor
 * ({@code software/amazon/awssdk/global/handlers/execution.interceptors} on the local stack's classpath), so every
 * client built in this JVM runs it; it acts only while a stack has {@link #install installed} policies, and only on
 * calls made for a function.
 *
 * <p>Which function: {@link LambdaHost} runs each invocation (init included) on a thread it marks with
 * {@link #enter(String)}; the mark is inheritable, so threads and virtual threads the handler starts carry it. A call
 * from an unmarked thread (the stack itself, a test, the operator's CLI) is not checked, as it is not a function's.
 *
 * <p>The IAM action and resource of a call: action = the service's IAM prefix + the operation
 * ({@code dynamodb:Query}, {@code states:DescribeExecution}, {@code events:PutEvents}, {@code s3:PutObject},
 * {@code xray:GetTraceSummaries}), with S3's and Lambda's own names ({@code ListObjectsV2} → {@code s3:ListBucket},
 * {@code HeadObject} → {@code s3:GetObject}, {@code Invoke} → {@code lambda:InvokeFunction}); resources as each
 * service's authorization reference defines them
 * (https://docs.aws.amazon.com/service-authorization/latest/reference/reference_policies_actions-resources-contextkeys.html):
 * a table {@code arn:aws:dynamodb:<region>:<account>:table/<name>}, its index {@code .../table/<name>/index/<index>}
 * for a query or scan of an index, every table of a batch; a state machine ARN for {@code StartExecution} and
 * {@code ListExecutions}, the execution ARN for {@code DescribeExecution}/{@code StopExecution}/{@code GetExecutionHistory};
 * each entry's event bus {@code arn:aws:events:<region>:<account>:event-bus/<name>} ({@code default} when unnamed);
 * a bucket {@code arn:aws:s3:::<bucket>} or object {@code arn:aws:s3:::<bucket>/<key>}; a schedule
 * {@code arn:aws:scheduler:<region>:<account>:schedule/<group>/<name>} (and {@code iam:PassRole} on the schedule's
 * {@code Target.RoleArn} for a create or update); a KMS key {@code arn:aws:kms:<region>:<account>:key/<keyId>} for
 * {@code kms:Encrypt}/{@code kms:Decrypt} (the request's {@code KeyId}); {@code *} for X-Ray's trace reads and any
 * other call.
 *
 * <p>A denied call throws the service's own exception with AWS's code, status and message ({@link IamPolicies#denial}):
 * DynamoDB, Step Functions, EventBridge, KMS: {@code AccessDeniedException}, HTTP 400; S3: {@code AccessDenied}, HTTP 403,
 * the resource in quotes; others {@code AccessDeniedException}, HTTP 403. It is thrown before the request is sent,
 * so the SDK does not retry it (AWS's answer is not retryable either).
 *
 * <p>Recording (least privilege, DESIGN.md): every checked call's principal, action, resource and decision is
 * appended once per distinct line to the recording file, one JSON object per line
 * ({@code {"principal","action","resource","decision"}}).
 */
public final class IamEnforcement implements ExecutionInterceptor {
    /** The current function's logical id, inherited by the threads it starts. */
    private static final InheritableThreadLocal<String> PRINCIPAL = new InheritableThreadLocal<>();

    /** The installed policies and recorder, or null when no stack enforces IAM in this JVM. */
    private static volatile Installed installed;

    /**
     * What {@link #install} set.
     *
     * @param policies the policies to enforce
     * @param enforce  false to only record (IAM off: every call passes)
     * @param recorder the recording's lines already written, and where they go
     */
    private record Installed(IamPolicies policies, boolean enforce, CallRecording recorder, Consumer<String> log) {}

    /** The SDK builds this through the global interceptor registration. */
    public IamEnforcement() {}

    /**
     * Makes this JVM's functions run under {@code policies} until {@link #uninstall()}.
     *
     * @param policies  the template's policies
     * @param enforce   true to refuse what AWS refuses; false to let every call through (recorded still)
     * @param recording where each distinct checked call is appended (created with its directories), or null for none
     * @param log       where each denial is logged
     * @throws IOException when the recording cannot be opened
     */
    public static synchronized void install(IamPolicies policies, boolean enforce, Path recording, Consumer<String> log)
            throws IOException {
        installed = new Installed(policies, enforce, recording == null ? null : new CallRecording(recording, log), log);
    }

    /** Stops enforcing and closes the recording. */
    public static synchronized void uninstall() {
        Installed i = installed;
        installed = null;
        if (i != null && i.recorder() != null) {
            i.recorder().close();
        }
    }

    /** The policies in force, if a stack installed some. */
    public static Optional<IamPolicies> policies() {
        Installed i = installed;
        return i == null ? Optional.empty() : Optional.of(i.policies());
    }

    /** Marks the calling thread (and the threads it starts from now on) as running {@code functionLogicalId}. */
    public static void enter(String functionLogicalId) {
        PRINCIPAL.set(functionLogicalId);
    }

    /** The function the calling thread runs for, if any. */
    public static Optional<String> current() {
        return Optional.ofNullable(PRINCIPAL.get());
    }

    /**
     * Checks one request of {@code principal} outside the SDK (the Lambda host's Invoke API for a state machine's Task,
     * the Step Functions server's Distributed Map): records it, and answers AWS's denial message when it is refused.
     *
     * @param session the role session's name in the message
     * @return the denial message, empty when allowed or when no policies are installed or IAM is off
     */
    public static Optional<String> check(String principal, String action, String resource, String session) {
        return check(principal, action, resource, session, Map.of());
    }

    /** {@link #check(String, String, String, String)} for a request that carries condition {@code context} keys. */
    public static Optional<String> check(String principal, String action, String resource, String session,
                                         Map<String, String> context) {
        Installed i = installed;
        if (i == null) {
            return Optional.empty();
        }
        Optional<String> denial = i.policies().denial(principal, action, resource, session, context);
        if (i.recorder() != null) {
            i.recorder().record(principal, action, resource, i.policies().decide(principal, action, resource, context).name());
        }
        if (denial.isPresent()) {
            i.log().accept((i.enforce() ? "IAM DENIED: " : "IAM would deny (IAM off): ") + denial.get());
        }
        return i.enforce() ? denial : Optional.empty();
    }

    @Override
    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
        String principal = PRINCIPAL.get();
        if (principal == null || installed == null) {
            return;
        }
        String service = attributes.getAttribute(SdkExecutionAttribute.SERVICE_NAME);
        String operation = attributes.getAttribute(SdkExecutionAttribute.OPERATION_NAME);
        String action = action(service, operation);
        for (String resource : resources(service, operation, context.request())) {
            Optional<String> denial = check(principal, action, resource, principal);
            if (denial.isPresent()) {
                throw accessDenied(service, denial.get(), resource);
            }
        }
        Optional<String> passed = passedRole(service, context.request());
        if (passed.isPresent()) {
            // a schedule's target role is handed to Scheduler: AWS checks iam:PassRole on it
            // (https://docs.aws.amazon.com/scheduler/latest/UserGuide/setting-up.html#setting-up-execution-role)
            Optional<String> denial = check(principal, "iam:PassRole", passed.get(), principal,
                    Map.of("iam:PassedToService", "scheduler.amazonaws.com"));
            if (denial.isPresent()) {
                throw accessDenied(service, denial.get(), passed.get());
            }
        }
    }

    /** The role ARN a Scheduler {@code CreateSchedule}/{@code UpdateSchedule} hands over ({@code Target.RoleArn}). */
    static Optional<String> passedRole(String service, SdkRequest request) {
        if (!"Scheduler".equals(service)) {
            return Optional.empty();
        }
        return request.getValueForField("Target", Object.class)
                .filter(t -> t instanceof software.amazon.awssdk.core.SdkPojo)
                .flatMap(t -> ((software.amazon.awssdk.core.SdkPojo) t).sdkFields().stream()
                        .filter(f -> "RoleArn".equals(f.memberName()))
                        .findFirst()
                        .map(f -> f.getValueOrDefault(t)))
                .map(String::valueOf)
                .filter(r -> !r.isEmpty() && !"null".equals(r));
    }

    /** The IAM action of an SDK operation ({@code DynamoDb}, {@code Query} → {@code dynamodb:Query}). */
    static String action(String service, String operation) {
        return switch (service) {
            case "DynamoDb" -> "dynamodb:" + operation;
            case "Sfn" -> "states:" + operation;
            case "EventBridge" -> "events:" + operation;
            case "XRay" -> "xray:" + operation;
            case "Lambda" -> "lambda:" + (operation.equals("Invoke") ? "InvokeFunction" : operation);
            case "S3" -> "s3:" + switch (operation) {
                case "ListObjectsV2", "ListObjects" -> "ListBucket";
                case "HeadObject" -> "GetObject";
                case "HeadBucket" -> "ListBucket";
                default -> operation;
            };
            case "Scheduler" -> "scheduler:" + operation;
            case "CloudWatch" -> "cloudwatch:" + operation;
            case "Kms", "KMS" -> "kms:" + operation;
            default -> service.toLowerCase(java.util.Locale.ROOT) + ":" + operation;
        };
    }

    /** The resource ARNs one request is authorized on (see the class comment); at least one. */
    static List<String> resources(String service, String operation, SdkRequest request) {
        String region = SamTemplate.REGION;
        String account = SamTemplate.ACCOUNT;
        List<String> out = new ArrayList<>();
        switch (service) {
            case "DynamoDb" -> {
                String table = "arn:aws:dynamodb:" + region + ":" + account + ":table/";
                if (request instanceof BatchWriteItemRequest b) {
                    b.requestItems().keySet().forEach(t -> out.add(table + t));
                } else if (request instanceof BatchGetItemRequest b) {
                    b.requestItems().keySet().forEach(t -> out.add(table + t));
                } else {
                    field(request, "TableName").ifPresent(t -> out.add(table + t
                            + field(request, "IndexName").map(i -> "/index/" + i).orElse("")));
                }
            }
            case "Sfn" -> field(request, "executionArn").or(() -> field(request, "stateMachineArn")).ifPresent(out::add);
            case "EventBridge" -> {
                if (request instanceof PutEventsRequest p) {
                    for (PutEventsRequestEntry e : p.entries()) {
                        String bus = e.eventBusName() == null || e.eventBusName().isEmpty() ? "default" : e.eventBusName();
                        out.add(bus.startsWith("arn:") ? bus : "arn:aws:events:" + region + ":" + account + ":event-bus/" + bus);
                    }
                }
            }
            case "S3" -> field(request, "Bucket").ifPresent(b -> out.add("arn:aws:s3:::" + b
                    + field(request, "Key").map(k -> "/" + k).orElse("")));
            case "Lambda" -> field(request, "FunctionName").ifPresent(f -> out.add(f.startsWith("arn:") ? f
                    : "arn:aws:lambda:" + region + ":" + account + ":function:" + f));
            case "Scheduler" -> field(request, "Name").ifPresent(n -> out.add("arn:aws:scheduler:" + region + ":" + account
                    + ":schedule/" + field(request, "GroupName").orElse("default") + "/" + n));
            // the key named by KeyId (a key id, key ARN, alias name or alias ARN); a Decrypt without KeyId is
            // authorized on the ciphertext's key, which only the server reads: "*" then, which no key grant matches
            case "Kms", "KMS" -> field(request, "KeyId").ifPresent(k -> out.add(k.startsWith("arn:") ? k
                    : "arn:aws:kms:" + region + ":" + account + ":" + (k.startsWith("alias/") ? k : "key/" + k)));
            default -> {
                // X-Ray's trace reads and the rest: no resource-level permissions
            }
        }
        return out.isEmpty() ? List.of("*") : out.stream().distinct().toList();
    }

    private static Optional<String> field(SdkRequest request, String name) {
        return request.getValueForField(name, Object.class).map(String::valueOf).filter(s -> !s.isEmpty());
    }

    /** The service's access-denied exception as AWS answers (see the class comment). */
    static AwsServiceException accessDenied(String service, String message, String resource) {
        return switch (service) {
            case "DynamoDb" -> DynamoDbException.builder().message(message).statusCode(400)
                    .awsErrorDetails(details("AccessDeniedException", message, service)).build();
            case "Sfn" -> SfnException.builder().message(message).statusCode(400)
                    .awsErrorDetails(details("AccessDeniedException", message, service)).build();
            case "EventBridge" -> EventBridgeException.builder().message(message).statusCode(400)
                    .awsErrorDetails(details("AccessDeniedException", message, service)).build();
            case "Kms", "KMS" -> KmsException.builder().message(message).statusCode(400)
                    .awsErrorDetails(details("AccessDeniedException", message, service)).build();
            case "S3" -> {
                String quoted = message.replace("on resource: " + resource, "on resource: \"" + resource + "\"");
                yield S3Exception.builder().message(quoted).statusCode(403)
                        .awsErrorDetails(details("AccessDenied", quoted, service)).build();
            }
            default -> AwsServiceException.builder().message(message).statusCode(403)
                    .awsErrorDetails(details("AccessDeniedException", message, service)).build();
        };
    }

    private static AwsErrorDetails details(String code, String message, String service) {
        return AwsErrorDetails.builder().errorCode(code).errorMessage(message).serviceName(service).build();
    }

    /** Appends each distinct checked call once. */
    private static final class CallRecording {
        private final Set<String> seen = ConcurrentHashMap.newKeySet();
        private final BufferedWriter out;
        private final Path file;
        private final Consumer<String> log;

        CallRecording(Path file, Consumer<String> log) throws IOException {
            Files.createDirectories(file.toAbsolutePath().getParent());
            this.file = file;
            this.log = log;
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }

        void record(String principal, String action, String resource, String decision) {
            Map<String, String> line = new LinkedHashMap<>();
            line.put("principal", principal);
            line.put("action", action);
            line.put("resource", resource);
            line.put("decision", decision);
            String text = Json.write(line);
            if (!seen.add(text)) {
                return;
            }
            synchronized (out) {
                try {
                    out.write(text);
                    out.newLine();
                    out.flush();
                } catch (IOException e) {
                    log.accept("IAM recording not written to " + file + ": " + e);
                }
            }
        }

        void close() {
            synchronized (out) {
                try {
                    out.close();
                } catch (IOException e) {
                    log.accept("IAM recording not closed cleanly: " + e);
                }
            }
        }
    }
}
