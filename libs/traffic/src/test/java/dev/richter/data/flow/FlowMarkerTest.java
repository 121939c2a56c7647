package dev.richter.data.flow;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.richter.common.model.Marker;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The marker on a flow's calls: the run's proof travels next to it, and replaces any proof the flow's headers had. */
class FlowMarkerTest {
    @Test
    void aSignedMarkerPutsItsProofNextToTheMarkerAndDropsAnyOther() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Baggage", "richter-proof=forged, tenant=7");
        headers.put("accept", "application/json");
        Map<String, String> out = FlowRunner.withMarker(headers, Marker.DEFAULT.withProof("r1.dDE.Zmxvdzpj.1796000000.x"));
        assertEquals("richter-loadtest=1,richter-proof=r1.dDE.Zmxvdzpj.1796000000.x,tenant=7", out.get("baggage"));
        assertEquals("application/json", out.get("accept"));
        assertEquals("richter-loadtest=1,tenant=7", FlowRunner.withMarker(headers, Marker.DEFAULT).get("baggage"),
                "an unsigned marker drops a proof it did not make");
    }
}
