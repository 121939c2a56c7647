package dev.richter.checks.safety;

import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import dev.richter.links.trace.SpanRef;
import dev.richter.links.trace.TraceDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Test inputs: the shared corpus (system property {@code richter.corpus}, set by the root pom), test resources, hand-made spans. */
final class SafetyFixtures {
    static final Path CORPUS = locate();

    private SafetyFixtures() {}

    private static Path locate() {
        return Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    }

    static ParsedTraces corpus(String relative) {
        try {
            return TraceDocuments.parse(relative, Files.readAllBytes(CORPUS.resolve(relative)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static byte[] resource(String name) {
        try (InputStream in = SafetyFixtures.class.getResourceAsStream("/safety/" + name)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource safety/" + name);
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static ParsedTraces traces(String resourceName) {
        return TraceDocuments.parse(resourceName, resource(resourceName));
    }

    /** A span of trace {@code t} starting at {@code startMs} ms, lasting {@code durMs} ms. */
    static Span span(String t, String id, String parent, String service, String op, SpanKind kind, String peer,
                     Map<String, String> attrs, long startMs, long durMs, SpanRef... links) {
        return new Span(t, id, parent, List.of(links), service, op, kind, peer, attrs, startMs * 1_000_000L,
                durMs * 1_000_000L);
    }

    /** {@code span} with one more attribute. */
    static Span with(Span s, String key, String value) {
        Map<String, String> a = new HashMap<>(s.attributes());
        a.put(key, value);
        return s.withAttributes(a);
    }
}
