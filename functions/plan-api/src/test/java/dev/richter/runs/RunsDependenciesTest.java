package dev.richter.runs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The run use cases serve the HTTP API and planned starts alike, so {@code dev.richter.runs} names nothing of
 * {@code dev.richter.api}: no import, no qualified name.
 */
class RunsDependenciesTest {
    @Test
    void theRunUseCasesNameNoTypeOfTheHttpApi() throws IOException {
        Path dir = Path.of("src/main/java/dev/richter/runs");
        List<Path> sources;
        try (Stream<Path> files = Files.list(dir)) {
            sources = files.filter(f -> f.toString().endsWith(".java")).sorted().toList();
        }
        assertTrue(sources.size() >= 6, "the package's sources: " + sources);
        List<String> offending = sources.stream().filter(f -> read(f).contains("dev.richter.api")).map(Path::toString).toList();
        assertEquals(List.of(), offending);
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
