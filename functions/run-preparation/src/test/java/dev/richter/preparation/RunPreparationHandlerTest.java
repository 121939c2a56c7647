package dev.richter.preparation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.common.model.CaughtError;
import dev.richter.common.model.StepRef;
import dev.richter.sizing.PlanNotRunnableException;
import dev.richter.sizing.Quotas;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/**
 * The run-preparation function's contract at its edges (the whole path runs in the local stack's ITs, where the
 * state machine calls it): its three actions only, and a run it cannot find is a plan that cannot run, which the state
 * machine catches into the report.
 */
class RunPreparationHandlerTest {
    /** A DynamoDB that stores nothing: every item is absent. */
    private static final DynamoDbClient EMPTY = (DynamoDbClient) Proxy.newProxyInstance(DynamoDbClient.class.getClassLoader(),
            new Class<?>[] {DynamoDbClient.class}, (proxy, method, args) -> {
                if (method.getName().equals("getItem")) {
                    return GetItemResponse.builder().build();
                }
                throw new UnsupportedOperationException(method.getName());
            });

    private static void call(String event) throws Exception {
        new RunPreparationHandler(new Repositories(EMPTY, TableNames.fromEnv()), new EventPublisher(null, "bus"), Quotas.AWS)
                .handleRequest(new ByteArrayInputStream(event.getBytes(StandardCharsets.UTF_8)), new ByteArrayOutputStream(), null);
    }

    @Test
    void preparingARunThatDoesNotExistIsAPlanThatCannotRun() {
        var e = assertThrows(PlanNotRunnableException.class, () -> call("{\"action\":\"prepare\",\"runId\":\"run-x\"}"));
        assertEquals("unknown run run-x", e.getMessage());
    }

    @Test
    void buildingDataIsNotItsAction() {
        var e = assertThrows(IllegalArgumentException.class, () -> call("{\"action\":\"run-flow\",\"teamId\":\"t1\"}"));
        assertEquals("unknown action 'run-flow'; expected one of prepare, start-step, monitoring-lost", e.getMessage());
    }

    /** Every event the two state machines send this function decodes to its action's record. */
    @Test
    void everyEventTheStateMachinesSendDecodesToItsRecord() throws Exception {
        var start = decode("{\"action\":\"start-step\",\"step\":{\"runId\":\"r1\",\"teamId\":\"t1\",\"stage\":\"formal\","
                + "\"stepIndex\":2,\"qps\":50.0,\"durationS\":30}}");
        assertEquals(new RunPreparationAction.StartStep(new StepRef("r1", "t1", "formal", 2, 50.0, 30)), start);
        assertEquals(List.of("r1", "t1", "formal", 2), List.of(start.runId(), start.teamId(), start.stage(), start.stepInStage()));
        var lost = decode("{\"action\":\"monitoring-lost\",\"runId\":\"r1\",\"teamId\":\"t1\",\"stage\":\"nightly\","
                + "\"stepIndex\":0,\"state\":\"Probe\",\"error\":{\"Error\":\"Lambda.TooManyRequestsException\","
                + "\"Cause\":\"Rate Exceeded.\"}}");
        assertEquals(new RunPreparationAction.MonitoringLost("r1", "t1", "nightly", 0, "Probe",
                new CaughtError("Lambda.TooManyRequestsException", "Rate Exceeded.")), lost);
        assertEquals(new RunPreparationAction.Prepare("r1"), decode("{\"action\":\"prepare\",\"runId\":\"r1\"}"));
    }

    private static RunPreparationAction decode(String json) throws Exception {
        return JsonStreamHandler.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                RunPreparationAction.class);
    }
}
