package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.AslPayloads;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The report function's three events decode once into their records; anything else is refused naming what it got. */
class ReportEventTest {
    @Test
    void theReportStatesEventIsAReportRequestWithItsCaughtError() throws IOException {
        var payloads = AslPayloads.of("ReportFunctionArn", Map.of("runId", Json.MAPPER.getNodeFactory().textNode("run-1"),
                "state", Json.MAPPER.readTree("{\"runId\":\"run-1\",\"error\":{\"Error\":\"States.Timeout\",\"Cause\":\"c\"}}")));
        assertEquals(2, payloads.size(), "Report and CompleteStep");
        var report = payloads.stream().filter(p -> p.event().path("action").asText().equals("report")).findFirst().orElseThrow();
        var r = assertInstanceOf(ReportEvent.ReportRequest.class, decode(Json.write(report.event())));
        assertEquals("run-1", r.runId());
        assertEquals("States.Timeout", r.error().path("Error").asText());
        assertTrue(((ReportEvent.ReportRequest) decode("{\"action\":\"report\",\"runId\":\"r\"}")).error().isMissingNode());
    }

    @Test
    void theCompleteStepStatesEventIsAStepCompletedRequestOfItsStep() throws IOException {
        var payloads = AslPayloads.of("ReportFunctionArn", Map.of("runId", Json.MAPPER.getNodeFactory().textNode("run-1"),
                "teamId", Json.MAPPER.getNodeFactory().textNode("t1"), "stage", Json.MAPPER.getNodeFactory().textNode("formal"),
                "stepIndex", Json.MAPPER.getNodeFactory().numberNode(2)));
        var step = payloads.stream().filter(p -> p.event().path("action").asText().equals("step-completed")).findFirst().orElseThrow();
        var s = assertInstanceOf(ReportEvent.StepCompletedRequest.class, decode(Json.write(step.event())));
        assertEquals("run-1", s.runId());
        assertEquals("t1", s.teamId());
        assertEquals("formal", s.stage());
        assertEquals(2, s.stepIndex());
    }

    @Test
    void aStatusChangeEventHasNoActionAndKeepsItsDetail() throws IOException {
        var e = assertInstanceOf(ReportEvent.ExecutionStatusChange.class, decode("{\"version\":\"0\",\"id\":\"x\","
                + "\"detail-type\":\"Step Functions Execution Status Change\",\"source\":\"aws.states\","
                + "\"detail\":{\"name\":\"run-1\",\"status\":\"ABORTED\"}}"));
        assertEquals("run-1", e.checked().detail().path("name").asText());
        assertEquals(null, e.runId(), "the reaper opens the run's log context once it knows the run");
    }

    @Test
    void anUnknownActionOrAnEventOfAnotherKindIsRefused() throws IOException {
        var unknown = decode("{\"action\":\"nope\",\"runId\":\"r\"}");
        assertEquals("unknown action 'nope'; expected one of report, step-completed", assertThrows(IllegalArgumentException.class,
                () -> ((ReportEvent.ExecutionStatusChange) unknown).checked()).getMessage());
        var other = (ReportEvent.ExecutionStatusChange) decode("{\"detail-type\":\"Run Completed\"}");
        assertThrows(IllegalArgumentException.class, other::checked);
    }

    private static ReportEvent decode(String json) throws IOException {
        return JsonStreamHandler.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), ReportEvent.class);
    }
}
