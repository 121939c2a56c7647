package dev.richter.links;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Holds {@code docs/formats.md} true to the repository: every test it names as {@code `Class.method`} is a method of a
 * test class of the repository, every source or resource path it names in backticks exists, and every corpus file it
 * names by its corpus path ({@code `bugs/...`}, {@code `traces/...`}, ...) is in the corpus.
 */
class FormatsDocTest {
    private static final Pattern TEST_REF = Pattern.compile("`([A-Z][A-Za-z0-9]*(?:Test|IT))\\.([a-z][A-Za-z0-9]*)`");
    private static final Pattern REPO_PATH = Pattern.compile("`((?:libs|functions|local|agent|sdk)/[^`*\\s]+)`");
    private static final Pattern CORPUS_PATH = Pattern.compile("`((?:bugs|traces|har|accesslog|prometheus|health|asl|grpc)/[^`*\\s]+)`");
    private static final List<String> SOURCE_ROOTS = List.of("libs", "functions", "local/src", "agent/src", "sdk/src");

    /** The repository root: the first directory up from the working directory that holds {@code docs/formats.md}. */
    static Path root() {
        for (Path p = Path.of("").toAbsolutePath(); p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve("docs/formats.md"))) {
                return p;
            }
        }
        throw new IllegalStateException("no docs/formats.md above " + Path.of("").toAbsolutePath());
    }

    @Test
    void everyTestThePageNamesExists() throws IOException {
        Path root = root();
        List<String> named = testsNamed(Files.readString(root.resolve("docs/formats.md")));
        assertTrue(named.size() > 50, "the page names its tests: " + named.size());
        assertEquals(List.of(), missingTests(root, named), "tests docs/formats.md names that do not exist");
    }

    /** Every {@code `Class.method`} a page names, where the class's name ends in {@code Test} or {@code IT}, in order. */
    static List<String> testsNamed(String page) {
        List<String> out = new ArrayList<>();
        Matcher m = TEST_REF.matcher(page);
        while (m.find()) {
            out.add(m.group(1) + "." + m.group(2));
        }
        return out;
    }

    /** Those of {@code named} ({@code Class.method}) that are no method of a test class of the repository. */
    static List<String> missingTests(Path root, List<String> named) throws IOException {
        Map<String, List<Path>> testClasses = testClasses(root);
        List<String> missing = new ArrayList<>();
        for (String ref : named) {
            String cls = ref.substring(0, ref.indexOf('.'));
            List<Path> files = testClasses.getOrDefault(cls, List.of());
            Pattern method = Pattern.compile("\\bvoid\\s+" + Pattern.quote(ref.substring(ref.indexOf('.') + 1)) + "\\s*\\(");
            if (files.stream().noneMatch(f -> method.matcher(read(f)).find())) {
                missing.add(ref + (files.isEmpty() ? " (no such test class)" : ""));
            }
        }
        return missing;
    }

    @Test
    void everyFileThePageNamesExists() throws IOException {
        Path root = root();
        String page = Files.readString(root.resolve("docs/formats.md"));
        List<String> missing = new ArrayList<>();
        Matcher repo = REPO_PATH.matcher(page);
        while (repo.find()) {
            if (!Files.exists(root.resolve(repo.group(1)))) {
                missing.add(repo.group(1));
            }
        }
        Matcher corpus = CORPUS_PATH.matcher(page);
        while (corpus.find()) {
            if (!Files.exists(Corpus.ROOT.resolve(corpus.group(1)))) {
                missing.add("corpus " + corpus.group(1));
            }
        }
        assertEquals(List.of(), missing, "files docs/formats.md names that do not exist");
    }

    /** Every {@code *Test.java} and {@code *IT.java} under a {@code src/test/java} of the repository, by class name. */
    private static Map<String, List<Path>> testClasses(Path root) throws IOException {
        Map<String, List<Path>> out = new HashMap<>();
        for (String dir : SOURCE_ROOTS) {
            Path start = root.resolve(dir);
            if (!Files.isDirectory(start)) {
                continue;
            }
            try (Stream<Path> files = Files.walk(start)) {
                files.filter(f -> f.toString().contains("/src/test/java/"))
                        .filter(f -> f.toString().endsWith("Test.java") || f.toString().endsWith("IT.java"))
                        .forEach(f -> {
                            String name = f.getFileName().toString();
                            out.computeIfAbsent(name.substring(0, name.length() - ".java".length()), k -> new ArrayList<>()).add(f);
                        });
            }
        }
        return out;
    }

    private static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
