package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.richter.common.Json;
import org.junit.jupiter.api.Test;

class MarkerJsonTest {
    @Test
    void theProofIsNeverWrittenAndNeverRead() {
        Marker signed = Marker.DEFAULT.withProof("r1.dDE.cnVu.1796000000.secret");
        assertEquals("{\"header\":\"baggage\",\"key\":\"richter-loadtest\",\"value\":\"1\"}", Json.write(signed));
        Marker read = Json.read("{\"header\":\"baggage\",\"key\":\"k\",\"value\":\"v\",\"proof\":\"forged\"}", Marker.class);
        assertEquals(new Marker("baggage", "k", "v"), read);
        assertNull(read.proof(), "a proof comes only from signing");
    }
}
