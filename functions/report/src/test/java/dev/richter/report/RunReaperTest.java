package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link RunReaper}: which status-change events it acts on, and the reason it records. */
class RunReaperTest {
    static JsonNode detail(String json) throws Exception {
        return Json.MAPPER.readTree(json.replace('\'', '"'));
    }

    @Test
    void theReasonNamesTheStatusTheErrorAndTheFunctionsMessage() throws Exception {
        assertEquals("execution ABORTED: stopped from outside (StopExecution)",
                RunReaper.reason(detail("{'status':'ABORTED','error':null,'cause':null}")));
        assertEquals("execution ABORTED (on-call stopped it)",
                RunReaper.reason(detail("{'status':'ABORTED','cause':'on-call stopped it'}")));
        assertEquals("execution TIMED_OUT: States.Timeout (Execution timed out)",
                RunReaper.reason(detail("{'status':'TIMED_OUT','error':'States.Timeout','cause':'Execution timed out'}")));
        String cause = Json.write(Map.of("errorType", "Sandbox.Timedout", "errorMessage", "Task timed out after 120.00 seconds"));
        JsonNode failed = Json.MAPPER.createObjectNode().put("status", "FAILED").put("error", "Sandbox.Timedout").put("cause", cause);
        assertEquals("execution FAILED: Sandbox.Timedout (Task timed out after 120.00 seconds)", RunReaper.reason(failed));
    }

    @Test
    void anExecutionThatSucceededOrStillRunsIsLeftAlone() throws Exception {
        FakeDynamo ddb = new FakeDynamo();
        RunReaper reaper = new RunReaper(new Repositories(ddb.client, TableNames.fromEnv()), null, ms -> { });
        for (String status : List.of("SUCCEEDED", "RUNNING")) {
            Map<String, Object> out = reaper.reap(detail("{'detail-type':'Step Functions Execution Status Change',"
                    + "'detail':{'status':'" + status + "','name':'run-1'}}"), 60_000);
            assertEquals(List.of(), out.get("reaped"), status);
        }
    }

    @Test
    void theWaitForWorkersIsTheRequestDeadlineAndTheirStopTime() {
        assertEquals(1_000 + RunReaper.WORKER_STOP_MS, RunReaper.settleMs(1_000));
    }
}
