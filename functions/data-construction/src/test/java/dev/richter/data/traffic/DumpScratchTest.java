package dev.richter.data.traffic;

import dev.richter.common.Json;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class DumpScratchTest {
    @Test
    void dump() throws Exception {
        Path root = Path.of("/work/shared/corpus");
        try (var s = Files.list(root.resolve("har"))) {
            for (Path p : s.sorted().toList()) {
                show(TrafficImporter.Format.HAR, p);
            }
        }
        show(TrafficImporter.Format.HAR, root.resolve("bugs/09-har-corrupted-gzip-body.har"));
        show(TrafficImporter.Format.HAR, root.resolve("bugs/31-har-postdata-params-only.har"));
        try (var s = Files.list(root.resolve("accesslog"))) {
            for (Path p : s.sorted().toList()) {
                show(p.getFileName().toString().startsWith("nginx") ? TrafficImporter.Format.NGINX : TrafficImporter.Format.APACHE, p);
            }
        }
    }

    static void show(TrafficImporter.Format f, Path p) throws Exception {
        try {
            TrafficSet set = TrafficImporter.importFile(f, p.getFileName().toString(), Files.readAllBytes(p), null);
            System.out.println("== " + p.getFileName() + " " + set.counts() + " skipped=" + set.skipped() + " problems=" + set.problems());
            for (var e : set.endpoints()) {
                System.out.println("   " + e.host() + " " + e.method() + " " + e.pathTemplate() + " x" + e.count() + " w=" + e.weight()
                        + " first=" + e.samples().get(0).target() + " slots=" + e.samples().get(0).slots() + " notes=" + e.samples().get(0).notes()
                        + " body=" + (e.samples().get(0).body().length() > 80 ? e.samples().get(0).body().substring(0, 80) : e.samples().get(0).body()) + " resp=" + e.samples().get(0).response());
            }
        } catch (TrafficFormatException e) {
            System.out.println("== " + p.getFileName() + " FAILED " + e.problems());
        }
    }
}
