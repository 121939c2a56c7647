package dev.richter.probe;

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

/** Every Probe state's event decodes into a {@link ProbeRound} whose run fields feed the log context. */
class ProbeRoundTest {
    @Test
    void everyProbeStateSendsARoundWithItsRunFields() throws Exception {
        JsonNode targets = Json.MAPPER.readTree("[{\"module\":\"order\",\"kind\":\"tcp\",\"host\":\"h\",\"port\":1,\"timeoutMs\":5}]");
        var text = Json.MAPPER.getNodeFactory();
        List<AslPayloads.Payload> payloads = AslPayloads.of("ProbeFunctionArn", Map.of("runId", text.textNode("run-1"),
                "teamId", text.textNode("team-a"), "stage", text.textNode("formal"), "stepIndex", text.numberNode(2),
                "targets", targets));
        assertEquals(2, payloads.size(), "load-test-run's and nightly-check's");
        for (AslPayloads.Payload p : payloads) {
            ProbeRound round = JsonStreamHandler.decode(
                    new ByteArrayInputStream(Json.write(p.event()).getBytes(StandardCharsets.UTF_8)), ProbeRound.class);
            assertEquals("run-1", round.runId(), p.file());
            assertEquals("team-a", round.teamId(), p.file());
            assertEquals(Integer.valueOf(round.stepIndex()), round.stepInStage(), p.file());
            assertEquals(1, round.targets().size(), p.file());
        }
    }
}
