package dev.richter.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.Proxy;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.DescribeExecutionResponse;
import software.amazon.awssdk.services.sfn.model.ExecutionStatus;
import software.amazon.awssdk.services.sfn.model.SfnException;

/**
 * {@code GET /runs/{runId}}'s execution status (issue 28): a denied {@code DescribeExecution} is an error to see,
 * never a plausible {@code UNKNOWN}; a Step Functions that cannot answer now reads {@code UNKNOWN} with its error.
 */
class ExecutionStatusTest {
    private static final String ARN = "arn:aws:states:us-east-1:1:execution:richter-dev-load-test-run:run-1";

    private static SfnClient answering(Object answer) {
        return (SfnClient) Proxy.newProxyInstance(ExecutionStatusTest.class.getClassLoader(), new Class<?>[] {SfnClient.class},
                (proxy, method, args) -> {
                    if (!method.getName().equals("describeExecution")) {
                        throw new UnsupportedOperationException(method.getName());
                    }
                    if (answer instanceof RuntimeException e) {
                        throw e;
                    }
                    return answer;
                });
    }

    private static SfnException error(int status, String code, String message) {
        return (SfnException) SfnException.builder().statusCode(status).message(message)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage(message).build()).build();
    }

    @Test
    void theStatusOfTheExecution() {
        assertEquals(Map.of("executionStatus", "RUNNING"), RunResource.executionStatus(
                answering(DescribeExecutionResponse.builder().status(ExecutionStatus.RUNNING).build()), ARN));
    }

    @Test
    void aDeniedCallIsAnErrorNotUnknown() {
        SfnException denied = error(400, "AccessDeniedException", "User: arn:aws:sts::1:assumed-role/plan-api is not"
                + " authorized to perform: states:DescribeExecution on resource: " + ARN);
        assertEquals(denied, assertThrows(SfnException.class, () -> RunResource.executionStatus(answering(denied), ARN)));
    }

    @Test
    void aStepFunctionsThatCannotAnswerNowIsUnknownWithItsError() {
        Map<String, Object> status = RunResource.executionStatus(answering(error(400, "ThrottlingException", "Rate exceeded")), ARN);
        assertEquals("UNKNOWN", status.get("executionStatus"));
        assertEquals("ThrottlingException: Rate exceeded", String.valueOf(status.get("executionStatusError")).replaceAll(" \\(.*", ""));
    }
}
