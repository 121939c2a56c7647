package dev.richter.probe;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Locates {@code shared/corpus} (beside the repository) by walking up from the working directory. */
final class Corpus {
    private Corpus() {}

    static Path dir() {
        Path p = Path.of("").toAbsolutePath();
        for (; p != null; p = p.getParent()) {
            Path c = p.resolve("shared/corpus");
            if (Files.isDirectory(c)) return c;
        }
        throw new IllegalStateException("shared/corpus not found above " + Path.of("").toAbsolutePath());
    }

    static String read(String relative) throws IOException {
        return Files.readString(dir().resolve(relative));
    }
}
