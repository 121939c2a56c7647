package dev.richter.links;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/** Paths into the shared corpus (system property {@code richter.corpus}, set by the root pom). */
final class Corpus {
    static final Path ROOT = locate();

    private Corpus() {}

    private static Path locate() {
        return Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    }

    static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(ROOT.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every trace file (not the .md notes) under traces/, relative to the corpus root. */
    static Stream<String> traceFiles() {
        try (Stream<Path> s = Files.walk(ROOT.resolve("traces"))) {
            return s.filter(Files::isRegularFile).filter(p -> !p.toString().endsWith(".md"))
                    .map(p -> ROOT.relativize(p).toString()).sorted().toList().stream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
