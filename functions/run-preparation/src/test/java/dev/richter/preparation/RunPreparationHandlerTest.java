package dev.richter.preparation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.common.EventPublisher;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.sizing.PlanNotRunnableException;
import dev.richter.sizing.Quotas;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.GetItemResponse;

/**
 * The run-preparation function's contract at its edges (the whole path runs in the local stack's ITs, where the
 * state machine calls it): its two actions only, and a run it cannot find is a plan that cannot run, which the state
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
        assertEquals("unknown action 'run-flow'", e.getMessage());
    }
}
