package dev.richter.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.checks.safety.ShadowWritesCheck;
import dev.richter.common.Json;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.RegisteredService.Datastore;
import dev.richter.links.datastore.ShadowSpans;
import dev.richter.links.source.DirectoryTraceSource;
import dev.richter.links.trace.Span;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pre-test whose marked writes reached production never starts the formal stage: the dynamic gate's results
 * ({@link SafetyGate}, as {@link RunGate#dynamicChecks} adds them) hold a {@value ShadowWritesCheck#NAME} FAIL, the
 * gate's outcome is FAIL, and {@code load-test-run.asl.json}'s {@code DynamicGate} choice sends that to
 * {@code Report}, not to {@code SelectWarmUp} (the warm-up, then the formal stage). Spans: the agent's real output ({@link ShadowSpans#INVENTORY}).
 */
class ShadowWritesGateTest {
    private static final List<RegisteredService> SERVICES = List.of(new RegisteredService("t", "inventory", "http://i",
            "/h", null, List.of(new Datastore("table", "visits", "visits_shadow"))));

    @Test
    void aShadowWritesFailClosesTheGateBeforeTheFormalStage(@TempDir Path dir) throws IOException {
        try (InputStream in = ShadowSpans.class.getResourceAsStream("/" + ShadowSpans.INVENTORY)) {
            Files.write(dir.resolve("inventory.otlp.json"), in.readAllBytes());
        }
        List<Span> spans = ShadowSpans.parse(ShadowSpans.INVENTORY).spans();
        long from = spans.stream().mapToLong(Span::startEpochNanos).min().orElseThrow() / 1_000_000L;
        long to = spans.stream().mapToLong(s -> s.startEpochNanos() + s.durationNanos()).max().orElseThrow() / 1_000_000L;

        List<CheckResult> results = new SafetyGate(() -> to + 60_000, ms -> { }).dynamicChecks("t", SafetyConfig.NONE,
                new DirectoryTraceSource(dir), "", SERVICES, List.of(), from, to, 9, "pre-test");
        // the capture's marked requests took edges its one real request did not: test-vs-real-links fails too, so
        // the gate is judged on the shadow-writes results with every other check's
        List<CheckResult> onlyShadowWritesFail = results.stream()
                .filter(r -> r.outcome() != Outcome.FAIL || r.name().equals(ShadowWritesCheck.NAME)).toList();
        RunGate.GateResult gate = new RunGate.GateResult(CheckResult.worst(onlyShadowWritesFail), onlyShadowWritesFail);

        // and the capture's JVM ran without Richter's extension: isolation-enforced finds no proof
        assertEquals(List.of("isolation-enforced", "test-vs-real-links", ShadowWritesCheck.NAME), results.stream()
                .filter(r -> r.outcome() == Outcome.FAIL).map(CheckResult::name).distinct().toList(), results.toString());
        // 8 distinct failures (H2's MERGE ... KEY and INSERT ... DIRECT each by its statement) and the summary
        assertEquals(9, onlyShadowWritesFail.stream().filter(r -> r.outcome() == Outcome.FAIL).count());
        assertEquals(Outcome.FAIL, gate.outcome());
        assertEquals("Report", nextOf("DynamicGate", gate), "a failed gate goes to the report");
        RunGate.GateResult passed = new RunGate.GateResult(Outcome.PASS, List.of());
        assertEquals("SelectWarmUp", nextOf("DynamicGate", passed),
                "only a passing gate reaches the warm-up and, after it, the formal stage");
    }

    /** The state a Choice state of the run's state machine goes to with {@code $.dynamicChecks} = {@code gate}. */
    private static String nextOf(String state, RunGate.GateResult gate) throws IOException {
        JsonNode asl = Json.MAPPER.readTree(Path.of("../../statemachines/load-test-run.asl.json").toFile()); // module dir
        JsonNode choice = asl.path("States").path(state);
        ObjectNode input = Json.MAPPER.createObjectNode();
        input.set("dynamicChecks", Json.MAPPER.valueToTree(gate));
        for (JsonNode c : choice.path("Choices")) {
            JsonNode value = input.at(c.path("Variable").asText().substring(1).replace('.', '/'));
            if (c.has("StringEquals") && value.asText().equals(c.path("StringEquals").asText())) {
                return c.path("Next").asText();
            }
        }
        return choice.path("Default").asText();
    }
}
