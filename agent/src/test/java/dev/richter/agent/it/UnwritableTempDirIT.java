package dev.richter.agent.it;

import static dev.richter.agent.it.ChildJvm.MARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.it.ChildJvm.Span;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Corpus bug 43 (opentelemetry-java-instrumentation #17030): a service whose {@code java.io.tmpdir} cannot be created
 * or written (a container's read-only root file system) still isolates. {@link IsolationTestApp} runs with the
 * temporary directory at a path under a regular file (so nothing can create it), on the services' Java 17 and on the
 * newest Java; a marked call to an out-of-scope host is refused and never reaches it, an unmarked one does, and the
 * marked spans carry the extension's proof that its isolation is on.
 */
class UnwritableTempDirIT {
    static List<String> javas() {
        return List.of(ChildJvm.serviceJava(), ChildJvm.latestJava());
    }

    @ParameterizedTest
    @MethodSource("javas")
    void aMarkedCallOutOfScopeIsRefusedWithNoWritableTempDir(String java) throws Exception {
        Path notADirectory = Files.createTempFile(Files.createDirectories(Path.of("target", "it-logs")), "tmpdir", ".file");
        Path tmpdir = notADirectory.resolve("tmp");
        Path document = Files.createTempFile(Path.of("target", "it-logs"), "isolation", ".json");
        CountingServer outOfScope = new CountingServer(200, "production-data");
        Files.writeString(document, "{\"mode\":\"enforce\",\"refreshS\":30,\"scope\":[],\"mocks\":[]}");
        ChildJvm app = new ChildJvm(java, List.of("-Djava.io.tmpdir=" + tmpdir,
                "-Drichter.isolation.file=" + document), IsolationTestApp.class, List.of());
        try {
            String marked = app.call(outOfScope.url("/customers"), "GET", false, MARKED);
            assertTrue(marked.startsWith("error=Richter isolation refused a marked call to exit '127.0.0.1:"
                    + outOfScope.port() + " GET /customers'"), marked + "\n" + app.output());
            assertEquals(0, outOfScope.count(), "a marked call reached the out-of-scope host");
            assertEquals("status=200 body=production-data", app.call(outOfScope.url("/customers"), "GET", false, null));
            assertEquals(1, outOfScope.count());

            List<Span> spans = app.stopAndReadSpans();
            List<Span> refused = spans.stream().filter(s -> s.attributes().containsKey("richter.refused")).toList();
            assertTrue(!refused.isEmpty(), "refused spans: " + spans);
            for (Span s : refused) {
                assertEquals("true", s.attributes().get("richter.isolation.active"), s.toString());
            }
        } finally {
            ChildJvm.closeAll(app, outOfScope);
        }
    }
}
