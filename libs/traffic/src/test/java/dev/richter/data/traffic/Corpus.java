package dev.richter.data.traffic;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The shared corpus ({@code -Drichter.corpus}, default {@code /work/shared/corpus}) and this module's fixtures. */
final class Corpus {
    static final Path ROOT = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));

    private Corpus() {}

    static byte[] bytes(String relative) {
        try {
            return Files.readAllBytes(ROOT.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] fixture(String name) {
        try (var in = Corpus.class.getResourceAsStream("/traffic/" + name)) {
            if (in == null) {
                throw new IllegalStateException("no fixture " + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static TrafficSet har(String relative) {
        return TrafficImporter.importFile(TrafficImporter.Format.HAR, Path.of(relative).getFileName().toString(), bytes(relative), null);
    }
}
