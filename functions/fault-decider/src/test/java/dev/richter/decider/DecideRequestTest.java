package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AslPayloads;
import dev.richter.common.Json;
import dev.richter.common.JsonStreamHandler;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Every Decide state's event decodes into a {@link DecideRequest} whose run fields feed the log context. */
class DecideRequestTest {
    @Test
    void everyDecideStateSendsARequestWithItsRunFields() throws Exception {
        var json = Json.MAPPER.getNodeFactory();
        JsonNode policy = Json.MAPPER.readTree("{\"conditions\":[{\"type\":\"anyDamagedCoreModule\"}]}");
        List<AslPayloads.Payload> payloads = AslPayloads.of("FaultDeciderFunctionArn", Map.of("runId", json.textNode("run-1"),
                "teamId", json.textNode("team-a"), "stage", json.textNode("formal"), "stepIndex", json.numberNode(3),
                "stepEndsAtMs", json.numberNode(4_102_444_800_000L), "coreModules", json.arrayNode().add("order"),
                "abortPolicy", policy, "round", Json.MAPPER.readTree("{\"runId\":\"run-1\",\"observedAtMs\":1,\"reports\":[]}")));
        assertEquals(2, payloads.size(), "load-test-run's and nightly-check's");
        for (AslPayloads.Payload p : payloads) {
            DecideRequest r = JsonStreamHandler.decode(
                    new ByteArrayInputStream(Json.write(p.event()).getBytes(StandardCharsets.UTF_8)), DecideRequest.class);
            assertEquals("run-1", r.runId(), p.file());
            assertEquals("team-a", r.teamId(), p.file());
            assertEquals(Integer.valueOf(r.stepIndex()), r.stepInStage(), p.file());
            assertEquals(4_102_444_800_000L, r.stepEndsAtMs(), p.file());
            assertEquals(List.of("order"), r.coreModules(), p.file());
            assertEquals(1, r.runAbortPolicy().orElseThrow().conditions().size(), p.file());
        }
    }
}
