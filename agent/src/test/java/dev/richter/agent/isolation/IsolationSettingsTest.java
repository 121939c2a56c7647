package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class IsolationSettingsTest {

    @Test
    void readsPropertiesBeforeTheEnvironment() {
        IsolationSettings s = IsolationSettings.from(
                Map.of("richter.isolation.url", "https://richter.example/isolation", "richter.isolation.refresh-s", "5"),
                Map.of("RICHTER_ISOLATION_URL", "http://ignored", "RICHTER_ISOLATION_TOKEN", "t0k"));

        assertEquals(Optional.of(URI.create("https://richter.example/isolation")), s.url());
        assertEquals("t0k", s.token());
        assertFalse(s.toString().contains("t0k"), "the token is never printed: " + s);
        assertEquals(5, s.refreshS());
        assertEquals("https://richter.example/isolation", s.source());
    }

    @Test
    void defaultsToNoSourceAndA30SecondRefresh() {
        IsolationSettings s = IsolationSettings.from(Map.of(), Map.of());

        assertEquals(Optional.empty(), s.url());
        assertEquals(Optional.empty(), s.file());
        assertEquals(30, s.refreshS());
        assertEquals("none", s.source());
    }

    @Test
    void readsAFileFromTheEnvironment() {
        assertEquals(Optional.of(Path.of("/etc/richter/isolation.json")),
                IsolationSettings.from(Map.of(), Map.of("RICHTER_ISOLATION_FILE", "/etc/richter/isolation.json")).file());
    }

    @Test
    void namesThePropertyOfABadSetting() {
        assertEquals("richter.isolation.url and richter.isolation.file: set one, not both",
                assertThrows(IllegalArgumentException.class, () -> IsolationSettings.from(
                        Map.of("richter.isolation.url", "http://a", "richter.isolation.file", "/f"), Map.of())).getMessage());
        assertEquals("richter.isolation.refresh-s: must be a positive integer, got 'soon'",
                assertThrows(IllegalArgumentException.class, () -> IsolationSettings.from(
                        Map.of("richter.isolation.refresh-s", "soon"), Map.of())).getMessage());
        assertEquals("richter.isolation.refresh-s: must be a positive integer, got 0",
                assertThrows(IllegalArgumentException.class, () -> IsolationSettings.from(
                        Map.of("richter.isolation.refresh-s", "0"), Map.of())).getMessage());
        assertEquals("richter.isolation.url: must be an http(s) URL, got file:/x",
                assertThrows(IllegalArgumentException.class, () -> IsolationSettings.from(
                        Map.of("richter.isolation.url", "file:/x"), Map.of())).getMessage());
    }
}
