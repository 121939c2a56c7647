package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The OpenMetrics parser conformance suite (OpenObservability/OpenMetrics {@code tests/testdata/parsers}, in the
 * corpus at {@code prometheus/openmetrics-suite/}): each case is a directory with a {@code test.json}
 * ({@code shouldParse}) and its exposition. Every case is read by {@link PrometheusTextParser#parseStrict(String, String)}
 * as a scrape declared {@code application/openmetrics-text; version=1.0.0}: a valid one must parse, with one sample
 * per sample line; an invalid one should be rejected with its line and the rule it breaks. Prints
 * {@code valid <n>/44 invalid-flagged <n>/167} and the invalid cases still accepted.
 */
class OpenMetricsSuiteTest {
    private static final String CONTENT_TYPE = "application/openmetrics-text; version=1.0.0; charset=utf-8";
    /** Invalid cases rejected, at least (all of them today; the test lists any still accepted). */
    private static final int MIN_INVALID_FLAGGED = 167;

    private record Case(String name, boolean shouldParse, String text) {}

    private static List<Case> cases() throws IOException {
        Path root = Corpus.dir().resolve("prometheus/openmetrics-suite");
        List<Case> out = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(Files::isDirectory).sorted().toList()) {
                JsonNode test = Json.MAPPER.readTree(Files.readAllBytes(dir.resolve("test.json")));
                out.add(new Case(dir.getFileName().toString(), test.path("shouldParse").asBoolean(),
                        Files.readString(dir.resolve(test.path("file").asText("metrics")))));
            }
        }
        return out;
    }

    @Test
    void theSuite() throws IOException {
        List<Case> cases = cases();
        List<String> validRejected = new ArrayList<>();
        List<String> invalidAccepted = new ArrayList<>();
        int valid = 0;
        int invalid = 0;
        int validParsed = 0;
        int invalidFlagged = 0;
        for (Case c : cases) {
            if (c.shouldParse()) {
                valid++;
                try {
                    PrometheusScrape scrape = PrometheusTextParser.parseStrict(c.text(), CONTENT_TYPE);
                    long sampleLines = c.text().lines().filter(l -> !l.isBlank() && !l.startsWith("#")).count();
                    assertEquals(sampleLines, scrape.samples().size(), c.name());
                    validParsed++;
                } catch (PrometheusParseException e) {
                    validRejected.add(c.name() + ": " + e.getMessage());
                }
            } else {
                invalid++;
                try {
                    PrometheusTextParser.parseStrict(c.text(), CONTENT_TYPE);
                    invalidAccepted.add(c.name());
                } catch (PrometheusParseException e) {
                    assertTrue(e.lineNumber() >= 1, c.name());
                    invalidFlagged++;
                }
            }
        }
        System.out.println("OpenMetrics suite: valid " + validParsed + "/" + valid + " invalid-flagged " + invalidFlagged + "/" + invalid);
        System.out.println("valid cases rejected: " + validRejected);
        System.out.println("invalid cases still accepted (" + invalidAccepted.size() + "): " + invalidAccepted);
        assertEquals(44, valid);
        assertEquals(167, invalid);
        assertEquals(List.of(), validRejected);
        assertEquals(valid, validParsed);
        assertTrue(invalidFlagged >= MIN_INVALID_FLAGGED, "invalid-flagged " + invalidFlagged);
    }
}
