package dev.richter.data;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.richter.common.JsonStreamHandler;
import dev.richter.common.model.Marker;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The data-construction event decodes once into its action's record, with the defaults the action documents. */
class DataConstructionRequestTest {
    @Test
    void theSampleRunFlowEventDecodesWithEveryField() throws IOException {
        var r = (DataConstructionRequest.RunFlowRequest) decode(
                Files.readString(Path.of("../../events/data-construction/run-flow.json")));
        assertEquals("shop-team", r.teamId());
        assertEquals("flow-00000000-0000-0000-0000-000000000000", r.flowId());
        assertEquals(10000, r.rows());
        assertEquals(32, r.concurrency());
        assertEquals("shadow-buyers", r.dataSetId());
        assertEquals("http://127.0.0.1:8081", r.inputs().get("baseUrl").asText());
        assertEquals(Marker.DEFAULT, r.marker());
        assertEquals("shop-team", r.teamId(), "the log context's team");
    }

    @Test
    void absentFieldsTakeTheirDefaults() throws IOException {
        assertEquals(new DataConstructionRequest.RunFlowRequest("", "", 0, 8, null, Map.of(), Marker.DEFAULT),
                decode("{\"action\":\"run-flow\"}"));
    }

    @Test
    void anUnknownActionNamesIt() {
        var e = assertThrows(IllegalArgumentException.class, () -> decode("{\"action\":\"prepare\",\"runId\":\"r\"}"));
        assertEquals("unknown action 'prepare'; expected one of run-flow", e.getMessage());
    }

    private static DataConstructionRequest decode(String json) throws IOException {
        return JsonStreamHandler.decode(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)),
                DataConstructionRequest.class);
    }
}
