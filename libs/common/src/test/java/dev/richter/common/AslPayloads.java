package dev.richter.common;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The payloads the state machines ({@code statemachines/*.asl.json}) send one function: every {@code Task} state
 * whose {@code Resource} is the function's ARN substitution, with its {@code Parameters} as the function receives
 * them. A {@code "name.$": "<path>"} field becomes {@code "name"} with the placeholder {@code "<path>"} (a text) unless
 * the caller names a sample value for it. For tests that each state's event decodes into its handler's input.
 */
public final class AslPayloads {
    /** One task's payload: the state machine file, the state name, the event. */
    public record Payload(String file, String state, ObjectNode event) {}

    private AslPayloads() {
    }

    /**
     * The payloads sent to {@code ${<arnSubstitution>}}, in file and state order.
     *
     * @param arnSubstitution e.g. {@code ChecksFunctionArn}
     * @param samples         values for fields given by a path ({@code "scope.$"} → the value for {@code "scope"})
     */
    public static List<Payload> of(String arnSubstitution, Map<String, JsonNode> samples) throws IOException {
        Path dir = Path.of("../../statemachines"); // surefire runs in the module directory
        List<Payload> found = new ArrayList<>();
        try (var files = Files.list(dir)) {
            for (Path file : files.filter(f -> f.toString().endsWith(".asl.json")).sorted().toList()) {
                collect(file.getFileName().toString(), Json.MAPPER.readTree(file.toFile()).path("States"),
                        "${" + arnSubstitution + "}", samples, found);
            }
        }
        return found;
    }

    private static void collect(String file, JsonNode states, String resource, Map<String, JsonNode> samples,
                                List<Payload> found) {
        for (Iterator<Map.Entry<String, JsonNode>> it = states.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> state = it.next();
            JsonNode s = state.getValue();
            if ("Task".equals(s.path("Type").asText()) && resource.equals(s.path("Resource").asText())) {
                ObjectNode event = Json.MAPPER.createObjectNode();
                s.path("Parameters").fields().forEachRemaining(f -> {
                    String name = f.getKey().endsWith(".$") ? f.getKey().substring(0, f.getKey().length() - 2) : f.getKey();
                    event.set(name, f.getKey().endsWith(".$") ? samples.getOrDefault(name, f.getValue()) : f.getValue());
                });
                found.add(new Payload(file, state.getKey(), event));
            }
            for (String nested : List.of("Iterator", "ItemProcessor")) {
                collect(file, s.path(nested).path("States"), resource, samples, found);
            }
            s.path("Branches").forEach(b -> collect(file, b.path("States"), resource, samples, found));
        }
    }
}
