package dev.richter.probe;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The shared corpus (system property {@code richter.corpus}, set by the root pom). */
final class Corpus {
    private Corpus() {}

    static Path dir() {
        return Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    }

    static String read(String relative) throws IOException {
        return Files.readString(dir().resolve(relative));
    }
}
