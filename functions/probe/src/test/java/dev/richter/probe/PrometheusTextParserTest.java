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
            // the top-level scrapes; prometheus/openmetrics-suite/ is the OpenMetrics conformance suite, a tree of its own
            return s.filter(Files::isRegularFile).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("corpusFiles")
    void everyCorpusFileParses(Path file) throws IOException {
        List<MetricSample> samples = PrometheusTextParser.parseStrict(Files.readString(file)).samples();
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
    void bug12InvalidEscapeStillFailsTheLenientParse() throws IOException {
        String text = Corpus.read("bugs/12-prom-invalid-escape.prom");
        var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parse(text));
        assertEquals(3, e.lineNumber());
    }

    @Test
    void bug26ExemplarWithoutLabelSetIsDroppedAndTheSamplesKept() throws IOException {
        var scrape = PrometheusTextParser.parse(Corpus.read("bugs/26-openmetrics-exemplar-no-labelset.txt"));
        assertEquals(List.of("orders_processed_total", "orders_processed_created", "queue_depth"),
                scrape.samples().stream().map(MetricSample::name).toList());
        assertEquals(List.of(42.0, 1699990000.0, 7.0), scrape.samples().stream().map(MetricSample::value).toList());
        assertTrue(scrape.samples().getFirst().timestamp().isEmpty(), "the exemplar's timestamp is not the sample's");
        assertEquals(List.of("line 3: exemplar dropped: an exemplar needs a label set ('{}' when empty)"), scrape.warnings());
    }

    @Test
    void bug26StrictParseFailsNamingLine3() throws IOException {
        var e = assertThrows(PrometheusParseException.class,
                () -> PrometheusTextParser.parseStrict(Corpus.read("bugs/26-openmetrics-exemplar-no-labelset.txt")));
        assertEquals(3, e.lineNumber());
        assertTrue(e.getMessage().contains("label set"), e.getMessage());
    }

    @Test
    void everyMalformedExemplarIsDroppedWithItsLineAndReason() {
        String longValue = "x".repeat(130);
        var scrape = PrometheusTextParser.parse("""
                a_total 1 # {trace_id="abc"} 0.5 1700000000.1
                b_total 2 # {trace_id="C:\\A"} 1
                c_total 3 # {trace_id="abc"}
                d_total 4 # {trace_id="abc"} fast
                e_total 5 # {trace_id="%s"} 1
                f_total{x="y"} 6 1700000000 # {} 1 yesterday
                g_total 7 #
                h_total 8 # {} 1 2 3
                """.formatted(longValue));
        assertEquals(List.of(1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0),
                scrape.samples().stream().map(MetricSample::value).toList());
        assertEquals(1_700_000_000L, scrape.samples().get(5).timestampMs());
        var w = scrape.warnings();
        assertEquals(7, w.size(), w.toString());
        assertTrue(w.get(0).startsWith("line 2: exemplar dropped: exemplar label set: invalid escape sequence '\\A'"), w.get(0));
        assertEquals("line 3: exemplar dropped: an exemplar needs a value after its label set", w.get(1));
        assertEquals("line 4: exemplar dropped: invalid exemplar value 'fast'", w.get(2));
        assertEquals("line 5: exemplar dropped: exemplar label set has 138 characters, more than the 128 OpenMetrics allows",
                w.get(3));
        assertEquals("line 6: exemplar dropped: invalid exemplar timestamp 'yesterday'", w.get(4));
        assertEquals("line 7: exemplar dropped: an exemplar needs a label set ('{}' when empty)", w.get(5));
        assertTrue(w.get(6).startsWith("line 8: exemplar dropped: unexpected text"), w.get(6));
    }

    @Test
    void aMalformedHelpLineIsDroppedButTypeAndSampleDefectsStillFail() {
        var scrape = PrometheusTextParser.parse("""
                # HELP m Path C:\\\\Temp is fine, C:\\Temp is not.
                # TYPE m gauge
                m 1
                # HELP 9bad some text
                """);
        assertEquals(1, scrape.samples().size());
        assertEquals(List.of("line 1: HELP dropped: invalid escape sequence in HELP text at column 26",
                "line 4: HELP dropped: # HELP needs a valid metric name"), scrape.warnings());
        for (String bad : List.of("# TYPE m bogus\nm 1\n", "m 1 yesterday # {} 1\n", "m{a=\"\\A\"} 1 # {} 1\n")) {
            var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parse(bad), bad);
            assertEquals(1, e.lineNumber());
        }
    }

    @Test
    void warningsAreCappedWithACountOfTheRest() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < 25; i++) text.append("c").append(i).append("_total ").append(i).append(" #  1.0\n");
        var scrape = PrometheusTextParser.parse(text.toString());
        assertEquals(25, scrape.samples().size());
        assertEquals(PrometheusTextParser.MAX_WARNINGS + 1, scrape.warnings().size());
        assertEquals("line 25: 15 more optional parts dropped (up to this line; first 10 listed)", scrape.warnings().getLast());
    }

    @Test
    void aValidExemplarGivesNoWarning() throws IOException {
        var scrape = PrometheusTextParser.parse(Corpus.read("prometheus/alltypes.5mfs.om.txt"));
        assertEquals(List.of(), scrape.warnings());
    }

    @Test
    void docExampleValuesEscapesAndInfinity() throws IOException {
        var samples = PrometheusTextParser.parse(Corpus.read("prometheus/exposition_formats_doc_example.prom")).samples();
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
                """).samples();
        assertTrue(Double.isNaN(s.get(0).value()));
        assertEquals(Double.NEGATIVE_INFINITY, s.get(1).value());
        assertEquals("1", s.get(1).labels().get("x"));
        assertEquals(Double.POSITIVE_INFINITY, s.get(2).value());
    }

    @Test
    void openMetricsExemplarAndEof() throws IOException {
        var s = PrometheusTextParser.parseStrict(Corpus.read("prometheus/alltypes.5mfs.om.txt")).samples();
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
                """).samples();
        var m = ResourceMetricNames.defaults().extract(samples);
        assertEquals(0.9, m.get(ResourceMetricNames.HEAP_USED_RATIO), 1e-9);
        assertEquals(0.25, m.get(ResourceMetricNames.CPU_RATIO), 1e-9);
        assertEquals(0.9, m.get(ResourceMetricNames.CONNECTIONS_IN_USE_RATIO), 1e-9);
        var custom = new ResourceMetricNames(null, null, null, "my_pool_busy", "my_pool_size").extract(samples);
        assertEquals(0.75, custom.get(ResourceMetricNames.CONNECTIONS_IN_USE_RATIO), 1e-9);
    }
}
