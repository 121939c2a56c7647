package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.data.traffic.TrafficImporter;
import dev.richter.data.traffic.TrafficSet;
import dev.richter.probe.ActuatorHealth;
import dev.richter.probe.PrometheusTextParser;
import dev.richter.probe.ResourceMetricNames;
import dev.richter.runs.ContractSchemas;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The README's examples run from a clone as written: each {@code ./richter import} names a file of the repository that
 * imports without a problem, and the examples of "What your service must expose" (a service registration, a health
 * body, a metrics scrape) read the way the section says.
 */
class ReadmeExamplesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static String readme() throws Exception {
        return Files.readString(ROOT.resolve("README.md"));
    }

    /** The section of the README under {@code ## <title>}, to the next {@code ## }. */
    private static String section(String title) throws Exception {
        String text = readme();
        int start = text.indexOf("\n## " + title + "\n");
        assertTrue(start >= 0, "README has a section '" + title + "'");
        int end = text.indexOf("\n## ", start + 4);
        return text.substring(start, end < 0 ? text.length() : end);
    }

    /** The fenced code blocks of {@code text} with the language {@code lang}. */
    private static List<String> blocks(String text, String lang) {
        List<String> out = new ArrayList<>();
        Matcher m = Pattern.compile("```" + lang + "\n(.*?)```", Pattern.DOTALL).matcher(text);
        while (m.find()) {
            out.add(m.group(1));
        }
        return out;
    }

    /** One command line split as bash does for the quoting the README uses: '...', "..." with \$ \" \\ escapes. */
    static List<String> words(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean inWord = false;
        for (int i = 0; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '\'') {
                int end = line.indexOf('\'', i + 1);
                w.append(line, i + 1, end);
                i = end;
                inWord = true;
            } else if (c == '"') {
                for (i++; line.charAt(i) != '"'; i++) {
                    if (line.charAt(i) == '\\' && "$\"\\`".indexOf(line.charAt(i + 1)) >= 0) {
                        i++;
                    }
                    w.append(line.charAt(i));
                }
                inWord = true;
            } else if (c == '#' && !inWord) {
                break;
            } else if (Character.isWhitespace(c)) {
                if (inWord) {
                    words.add(w.toString());
                    w.setLength(0);
                    inWord = false;
                }
            } else {
                w.append(c);
                inWord = true;
            }
        }
        if (inWord) {
            words.add(w.toString());
        }
        return words;
    }

    @Test
    void theWordSplitterReadsTheReadmesQuoting() {
        assertEquals(List.of("./richter", "import", "--log-format", "log_format main '$remote_addr \"$request\"';", "f.log"),
                words("./richter import --log-format \"log_format main '\\$remote_addr \\\"\\$request\\\"';\" f.log   # x"));
    }

    @Test
    void everyImportExampleNamesAFileOfTheRepositoryThatImportsWithoutAProblem() throws Exception {
        List<List<String>> commands = new ArrayList<>();
        for (String block : blocks(readme(), "bash")) {
            for (String line : block.split("\n")) {
                if (line.startsWith("./richter import ")) {
                    commands.add(words(line));
                }
            }
        }
        assertTrue(commands.size() >= 3, commands.toString());
        for (List<String> args : commands) {
            String format = null;
            String logFormat = null;
            String file = null;
            for (int i = 2; i < args.size(); i++) {
                switch (args.get(i)) {
                    case "--format" -> format = args.get(++i);
                    case "--log-format" -> logFormat = args.get(++i);
                    case "--team", "--api" -> i++;
                    default -> file = args.get(i);
                }
            }
            Path path = ROOT.resolve(file);
            assertTrue(Files.isRegularFile(path), "the README's example file " + file + " is in the repository");
            TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.parse(format), path.getFileName().toString(),
                    Files.readAllBytes(path), logFormat);
            assertTrue(set.counts().imported() > 0, args + ": " + set.counts());
            assertEquals(List.of(), set.problems(), args.toString());
        }
    }

    @Test
    void theServiceExampleIsValidInputAndTheProbeExamplesReadAsTheSectionSays() throws Exception {
        String section = section("What your service must expose");

        Matcher body = Pattern.compile("-d '(\\{.*?\\})'", Pattern.DOTALL).matcher(blocks(section, "bash").getFirst());
        assertTrue(body.find());
        JsonNode service = Json.MAPPER.readTree(body.group(1));
        assertEquals(List.of(), new ContractSchemas().problems("ServiceInput", service));

        ActuatorHealth.Body health = ActuatorHealth.parse(blocks(section, "json").getFirst()).orElseThrow();
        assertEquals("UP", health.status());
        assertTrue(health.healthy() && health.failingComponents().isEmpty());

        Map<String, Double> metrics = ResourceMetricNames.defaults()
                .extract(PrometheusTextParser.parse(blocks(section, "text").getFirst()).samples());
        assertEquals(Map.of(ResourceMetricNames.CPU_RATIO, 0.12,
                ResourceMetricNames.HEAP_USED_RATIO, (2.4E7 + 4.1E7) / 2.68435456E8,
                ResourceMetricNames.CONNECTIONS_ACTIVE, 3.0,
                ResourceMetricNames.CONNECTIONS_IN_USE_RATIO, 3.0 / 20), metrics, "-1 is skipped, pools summed");
    }
}
