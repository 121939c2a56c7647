package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * One run per target, on every path: in {@code statemachines/load-test-run.asl.json}, no top-level path from
 * {@code StartAt} reaches the end of the execution (a Succeed or Fail state, or {@code End}) without passing a state
 * that releases the run's leases, whatever succeeds, fails or is caught on the way.
 */
class LoadTestRunAslTest {
    static final Path ASL = LocalAwsStack.rootFromEnv().resolve("statemachines/load-test-run.asl.json");

    @Test
    void everyPathThroughTheRunEndsByReleasingItsLeases() throws Exception {
        JsonNode states = Json.MAPPER.readTree(ASL.toFile()).path("States");
        Set<String> releasing = new HashSet<>();
        states.properties().forEach(e -> {
            if (e.getValue().path("Resource").asText().equals("${ReleaseLeasesFunctionArn}")) {
                releasing.add(e.getKey());
            }
        });
        assertEquals(Set.of("ReleaseLeases", "ReleaseLeasesAfterReportFailed"), releasing);

        // walk every transition (Next, Default, Choices, Catch) from StartAt, never through a releasing state
        Deque<String> todo = new ArrayDeque<>(List.of(Json.MAPPER.readTree(ASL.toFile()).path("StartAt").asText()));
        Set<String> seen = new HashSet<>();
        List<String> escapes = new ArrayList<>();
        while (!todo.isEmpty()) {
            String name = todo.pop();
            if (!seen.add(name) || releasing.contains(name)) {
                continue;
            }
            JsonNode s = states.path(name);
            String type = s.path("Type").asText();
            if (type.equals("Succeed") || type.equals("Fail") || s.path("End").asBoolean(false)) {
                escapes.add(name);
            }
            List<String> next = new ArrayList<>();
            if (s.has("Next")) {
                next.add(s.get("Next").asText());
            }
            if (s.has("Default")) {
                next.add(s.get("Default").asText());
            }
            s.path("Choices").forEach(c -> next.add(c.path("Next").asText()));
            s.path("Catch").forEach(c -> next.add(c.path("Next").asText()));
            todo.addAll(next);
        }
        assertTrue(escapes.isEmpty(), "states that end the run with its leases held: " + escapes);
        assertTrue(seen.contains("Report"), "the walk reached the report");
        assertTrue(states.path("Report").path("Catch").toString().contains("ReleaseLeasesAfterReportFailed"),
                "a failed report still releases");
    }
}
