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
 * The examples of the README and of the pages under {@code docs/} run from a clone as written: each {@code ./richter
 * import} (docs/local-stack.md, "Import recorded traffic") names a file of the repository that imports without a
 * problem, and the examples of docs/services.md, "What your service must expose" (a service registration, a health
 * body, a metrics scrape), read the way the page says.
 */
class DocsExamplesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** The page that shows how to import recorded traffic. */
    static final String IMPORT_PAGE = "docs/local-stack.md";

    /** The page that says what a service must expose. */
    static final String SERVICE_PAGE = "docs/services.md";

    private static String page(String path) throws Exception {
        Path file = ROOT.resolve(path);
        assertTrue(Files.isRegularFile(file), path + " is in the repository");
        return Files.readString(file);
    }

    /** The README and every page under {@code docs/}, in name order. */
    private static List<String> pages() throws Exception {
        List<String> out = new ArrayList<>();
        out.add(page("README.md"));
        try (var docs = Files.list(ROOT.resolve("docs"))) {
            for (Path p : docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                out.add(Files.readString(p));
            }
        }
        return out;
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

    /** One command line split as bash does for the quoting the pages use: '...', "..." with \$ \" \\ escapes. */
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

    /** The {@code ./richter import} lines of the {@code bash} blocks of {@code text}, split into words. */
    private static List<List<String>> importCommands(String text) {
        List<List<String>> out = new ArrayList<>();
        for (String block : blocks(text, "bash")) {
            for (String line : block.split("\n")) {
                if (line.startsWith("./richter import ")) {
                    out.add(words(line));
                }
            }
        }
        return out;
    }

    @Test
    void theWordSplitterReadsThePagesQuoting() {
        assertEquals(List.of("./richter", "import", "--log-format", "log_format main '$remote_addr \"$request\"';", "f.log"),
                words("./richter import --log-format \"log_format main '\\$remote_addr \\\"\\$request\\\"';\" f.log   # x"));
    }

    @Test
    void everyImportExampleNamesAFileOfTheRepositoryThatImportsWithoutAProblem() throws Exception {
        assertTrue(importCommands(page(IMPORT_PAGE)).size() >= 3, IMPORT_PAGE + " shows the three imports of examples/traffic/");
        List<List<String>> commands = new ArrayList<>();
        for (String text : pages()) {
            commands.addAll(importCommands(text));
        }
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
            assertTrue(Files.isRegularFile(path), "the docs' example file " + file + " is in the repository");
            TrafficSet set = TrafficImporter.importFile(TrafficImporter.Format.parse(format), path.getFileName().toString(),
                    Files.readAllBytes(path), logFormat);
            assertTrue(set.counts().imported() > 0, args + ": " + set.counts());
            assertEquals(List.of(), set.problems(), args.toString());
        }
    }

    @Test
    void theServiceExampleIsValidInputAndTheProbeExamplesReadAsThePageSays() throws Exception {
        String text = page(SERVICE_PAGE);
        assertTrue(text.startsWith("# What your service must expose\n"), SERVICE_PAGE + " is the page of that title");

        Matcher body = Pattern.compile("-d '(\\{.*?\\})'", Pattern.DOTALL).matcher(blocks(text, "bash").getFirst());
        assertTrue(body.find());
        JsonNode service = Json.MAPPER.readTree(body.group(1));
        assertEquals(List.of(), new ContractSchemas().problems("ServiceInput", service));

        ActuatorHealth.Body health = ActuatorHealth.parse(blocks(text, "json").getFirst()).orElseThrow();
        assertEquals("UP", health.status());
        assertTrue(health.healthy() && health.failingComponents().isEmpty());

        Map<String, Double> metrics = ResourceMetricNames.defaults()
                .extract(PrometheusTextParser.parse(blocks(text, "text").getFirst()).samples());
        assertEquals(Map.of(ResourceMetricNames.CPU_RATIO, 0.12,
                ResourceMetricNames.HEAP_USED_RATIO, (2.4E7 + 4.1E7) / 2.68435456E8,
                ResourceMetricNames.CONNECTIONS_ACTIVE, 3.0,
                ResourceMetricNames.CONNECTIONS_IN_USE_RATIO, 3.0 / 20), metrics, "-1 is skipped, pools summed");
    }
}
