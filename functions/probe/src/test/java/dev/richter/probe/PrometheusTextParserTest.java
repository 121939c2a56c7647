package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PrometheusTextParserTest {
    static Stream<Path> corpusFiles() throws IOException {
        try (var s = Files.list(Corpus.dir().resolve("prometheus"))) {
            return s.sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("corpusFiles")
    void everyCorpusFileParses(Path file) throws IOException {
        List<MetricSample> samples = PrometheusTextParser.parse(Files.readString(file));
        assertFalse(samples.isEmpty(), file.toString());
    }

    @Test
    void bug12InvalidEscapeIsRejectedOnLine3() throws IOException {
        var e = assertThrows(PrometheusParseException.class,
                () -> PrometheusTextParser.parse(Corpus.read("bugs/12-prom-invalid-escape.prom")));
        assertEquals(3, e.lineNumber());
        assertTrue(e.getMessage().contains("\\O"), e.getMessage());
    }

    @Test
    void docExampleValuesEscapesAndInfinity() throws IOException {
        var samples = PrometheusTextParser.parse(Corpus.read("prometheus/exposition_formats_doc_example.prom"));
        var msdos = samples.stream().filter(s -> s.name().equals("msdos_file_access_time_seconds")).findFirst().orElseThrow();
        assertEquals("C:\\DIR\\FILE.TXT", msdos.labels().get("path"));
        assertEquals("Cannot find file:\n\"FILE.TXT\"", msdos.labels().get("error"));
        var weird = samples.stream().filter(s -> s.name().equals("something_weird")).findFirst().orElseThrow();
        assertEquals(Double.POSITIVE_INFINITY, weird.value());
        assertEquals(-3982045L, weird.timestampMs());
        var minimal = samples.stream().filter(s -> s.name().equals("metric_without_timestamp_and_labels")).findFirst().orElseThrow();
        assertTrue(minimal.timestamp().isEmpty());
        assertEquals(12.47, minimal.value());
    }

    @Test
    void nanInfMissingHelpAndTrailingComma() {
        var s = PrometheusTextParser.parse("""
                a NaN
                b{x="1",} -Inf
                c +inf 1700000000000
                """);
        assertTrue(Double.isNaN(s.get(0).value()));
        assertEquals(Double.NEGATIVE_INFINITY, s.get(1).value());
        assertEquals("1", s.get(1).labels().get("x"));
        assertEquals(Double.POSITIVE_INFINITY, s.get(2).value());
    }

    @Test
    void openMetricsExemplarAndEof() throws IOException {
        var s = PrometheusTextParser.parse(Corpus.read("prometheus/alltypes.5mfs.om.txt"));
        assertTrue(s.stream().anyMatch(x -> x.name().equals("rpc_durations_histogram_seconds_bucket")
                && "-0.0002899999999999998".equals(x.labels().get("le")) && x.value() == 3));
        assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parse("a 1\n# EOF\nb 2\n"));
    }

    @Test
    void unescapedQuoteIsRejectedWithLineNumber() {
        var e = assertThrows(PrometheusParseException.class,
                () -> PrometheusTextParser.parse("# HELP m help\nm{a=\"x\"y\"} 1\n"));
        assertEquals(2, e.lineNumber());
    }

    @Test
    void otherMalformedLinesAreRejected() {
        for (String bad : List.of("1abc 1", "m{a=\"x\"} one", "m{a=\"x\",a=\"y\"} 1", "m{a=x} 1", "m{a=\"x\" 1",
                "m 1 2 3", "m{1a=\"x\"} 1", "# TYPE m bogus", "m 0x10", "m{a=\"x\\\"} 1")) {
            assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parse(bad), bad);
        }
    }

    @Test
    void resourceMetricsAreExtractedByConfigurableNames() {
        var samples = PrometheusTextParser.parse("""
                # TYPE jvm_memory_used_bytes gauge
                jvm_memory_used_bytes{area="heap",id="G1 Eden Space"} 300
                jvm_memory_used_bytes{area="heap",id="G1 Old Gen"} 600
                jvm_memory_used_bytes{area="nonheap",id="Metaspace"} 5000
                jvm_memory_max_bytes{area="heap",id="G1 Eden Space"} -1
                jvm_memory_max_bytes{area="heap",id="G1 Old Gen"} 1000
                process_cpu_usage 0.25
                hikaricp_connections_active{pool="HikariPool-1"} 9
                hikaricp_connections_max{pool="HikariPool-1"} 10
                my_pool_busy 3
                my_pool_size 4
                """);
        var m = ResourceMetricNames.defaults().extract(samples);
        assertEquals(0.9, m.get(ResourceMetricNames.HEAP_USED_RATIO), 1e-9);
        assertEquals(0.25, m.get(ResourceMetricNames.CPU_RATIO), 1e-9);
        assertEquals(0.9, m.get(ResourceMetricNames.CONNECTIONS_IN_USE_RATIO), 1e-9);
        var custom = new ResourceMetricNames(null, null, null, "my_pool_busy", "my_pool_size").extract(samples);
        assertEquals(0.75, custom.get(ResourceMetricNames.CONNECTIONS_IN_USE_RATIO), 1e-9);
    }
}
