package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

class ActuatorHealthTest {
    @Test
    void boot3ComponentsUp() throws IOException {
        var b = ActuatorHealth.parse(Corpus.read("health/spring-boot-api-doc-health-components.json")).orElseThrow();
        assertEquals("UP", b.status());
        assertTrue(b.healthy());
        assertEquals(List.of(), b.failingComponents());
    }

    @Test
    void boot2DetailsDownNamesNestedComponents() throws IOException {
        var b = ActuatorHealth.parse(Corpus.read("health/sba-health-boot2-details-DOWN.json")).orElseThrow();
        assertEquals("DOWN", b.status());
        assertFalse(b.healthy());
        assertEquals(List.of("sub-1", "sub-1/sub-1-2"), b.failingComponents());
    }

    @Test
    void boot1FlatDownNamesNestedComponents() throws IOException {
        var b = ActuatorHealth.parse(Corpus.read("health/sba-health-boot1-legacy-DOWN.json")).orElseThrow();
        assertFalse(b.healthy());
        assertEquals(List.of("sub-1", "sub-1/sub-1-2"), b.failingComponents());
    }

    @Test
    void unknownComponentsAreNamedButUpIsHealthy() throws IOException {
        var b = ActuatorHealth.parse(Corpus.read("health/sba-ui-mock-health-UNKNOWN-components.json")).orElseThrow();
        assertTrue(b.healthy());
        assertTrue(b.failingComponents().containsAll(List.of("clientConfigServer", "discoveryComposite",
                "discoveryComposite/discoveryClient", "reactiveDiscoveryClients")), b.failingComponents().toString());
        assertFalse(b.failingComponents().contains("db"));
    }

    @Test
    void aNonHealthDocumentIsNotMistakenForOne() throws IOException {
        assertTrue(ActuatorHealth.parse(Corpus.read("health/httptrace-expected.json")).isEmpty());
        assertTrue(ActuatorHealth.parse("OK").isEmpty());
    }

    @Test
    void bug15TwoHundredWithDownBodyIsDownAndNamesTheComponent() throws IOException {
        String http = Corpus.read("bugs/15-health-200-down.http");
        String body = http.lines().filter(l -> l.startsWith("{")).findFirst().orElseThrow();
        var b = ActuatorHealth.parse(body).orElseThrow();
        assertFalse(b.healthy());
        assertEquals(List.of("stockService"), b.failingComponents());
    }

    /** A custom JSON mapper writes Spring Boot's {@code Status} as an object: its {@code code} is the status. */
    @Test
    void bug37AStatusWrittenAsAnObjectIsReadByItsCode() throws IOException {
        var b = ActuatorHealth.parse(Corpus.read("bugs/37-actuator-status-object.json")).orElseThrow();
        assertEquals("DOWN", b.status());
        assertFalse(b.healthy());
        assertEquals(List.of("db"), b.failingComponents());
        var up = ActuatorHealth.parse("{\"status\":{\"code\":\"up\"},\"components\":{\"ping\":{\"status\":\"UP\"}}}")
                .orElseThrow();
        assertEquals(new ActuatorHealth.Body("UP", List.of()), up);
        assertTrue(ActuatorHealth.parse("{\"status\":{\"description\":\"no code\"}}").isEmpty(),
                "an object without a text code is no status");
    }
}
