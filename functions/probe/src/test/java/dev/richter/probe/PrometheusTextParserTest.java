package dev.richter.probe;

import static org.junit.jupiter.api.Assertions.*;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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
        // read as a prober reads them: these real exporters break OpenMetrics' form rules a strict parse rejects
        // (client_golang's _sum beside negative buckets, a Prometheus text scrape ending with # EOF), not its values
        PrometheusScrape scrape = PrometheusTextParser.parse(Files.readString(file));
        assertFalse(scrape.samples().isEmpty(), file.toString());
        assertEquals(List.of(), scrape.warnings(), file.toString());
    }

    /**
     * client_golang writes a histogram's {@code _sum} beside negative buckets, which OpenMetrics 1.0 forbids
     * (conformance case {@code bad_counter_values_9}): a strict parse rejects it naming the line, a prober's reads it.
     */
    @Test
    void aStrictParseRejectsWhatOpenMetricsForbidsInARealExporter() throws IOException {
        var e = assertThrows(PrometheusParseException.class,
                () -> PrometheusTextParser.parseStrict(Corpus.read("prometheus/alltypes.5mfs.om.txt")));
        assertEquals(33, e.lineNumber());
        assertEquals("line 33: a histogram with negative buckets has no _sum", e.getMessage());
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

    /**
     * The three scrapes of the corpus no other test reads value by value. Sample lines counted by hand: every line but
     * {@code # HELP}, {@code # TYPE} and {@code # EOF}; the values are those of the lines named.
     * <ul>
     *   <li>alltypes.237mfs.prom.txt (prometheus/prometheus textparse testdata, Prometheus 3.1.0 scraping itself in
     *       Prometheus text, with a closing {@code # EOF}): 2332 lines, 237 families, so 1857 samples; 12 NaN quantiles,
     *       no timestamp. Without a {@code Content-Type} the {@code # EOF} makes it read as OpenMetrics, without a
     *       warning; declared {@code text/plain; version=0.0.4}, as its exporter serves it, it passes a strict parse
     *       with the same samples. Line 93 is {@code go_gc_pauses_seconds_bucket{le="+Inf"} 381864}, line 113
     *       {@code go_goroutines 151}, line 373 {@code prometheus_build_info} with
     *       {@code tags="netgo,builtinassets,stringlabels"} and {@code version="3.1.0"}.</li>
     *   <li>metrics-test.prom (promtool testdata): 35 lines, 4 families, 27 samples; a summary, a histogram whose
     *       {@code +Inf} bucket (line 24, 13867) equals its {@code _count} (line 26), a counter, a gauge; strict parse
     *       passes.</li>
     *   <li>prom-common-expfmt-text.prom (prometheus/common expfmt testdata): 322 lines, 37 families, 248 samples;
     *       {@code http_requests_total{code="200",handler="prometheus",method="get"} 119} keeps its labels in written
     *       order; {@code http_request_duration_microseconds_sum{handler="prometheus"} 179886.5000000001}; the last
     *       sample, line 322, is {@code prometheus_target_interval_length_seconds_count{interval="1s"} 117}.</li>
     * </ul>
     */
    @Test
    void theOtherCorpusScrapesValueByValue() throws IOException {
        String selfScrape = Corpus.read("prometheus/alltypes.237mfs.prom.txt");
        PrometheusScrape all = PrometheusTextParser.parse(selfScrape);
        assertEquals(ExpositionFormat.OPENMETRICS_1_0, all.format());
        assertEquals(1857, all.samples().size());
        assertEquals(List.of(), all.warnings());
        assertEquals(12, all.samples().stream().filter(s -> Double.isNaN(s.value())).count());
        assertTrue(all.samples().stream().allMatch(s -> s.timestamp().isEmpty()));
        assertEquals(new MetricSample("go_gc_pauses_seconds_bucket", Map.of("le", "+Inf"), 381864, Long.MIN_VALUE, 93), sampleAt(all, 93));
        assertEquals(new MetricSample("go_goroutines", Map.of(), 151, Long.MIN_VALUE, 113), sampleAt(all, 113));
        MetricSample build = sampleAt(all, 373);
        assertEquals("prometheus_build_info", build.name());
        assertEquals(List.of("branch", "goarch", "goos", "goversion", "revision", "tags", "version"), List.copyOf(build.labels().keySet()));
        assertEquals("netgo,builtinassets,stringlabels", build.labels().get("tags"));
        assertEquals("3.1.0", build.labels().get("version"));
        PrometheusScrape asServed = PrometheusTextParser.parseStrict(selfScrape, "text/plain; version=0.0.4; charset=utf-8");
        assertEquals(ExpositionFormat.PROMETHEUS_TEXT_0_0_4, asServed.format());
        assertEquals(all.samples(), asServed.samples());

        PrometheusScrape promtool = PrometheusTextParser.parseStrict(Corpus.read("prometheus/metrics-test.prom"));
        assertEquals(ExpositionFormat.PROMETHEUS_TEXT_0_0_4, promtool.format());
        assertEquals(27, promtool.samples().size());
        assertEquals(new MetricSample("go_gc_duration_seconds", Map.of("quantile", "0.5"), 0.000118953, Long.MIN_VALUE, 5), sampleAt(promtool, 5));
        assertEquals("+Inf", sampleAt(promtool, 24).labels().get("le"));
        assertEquals(13867.0, sampleAt(promtool, 24).value(), "the +Inf bucket");
        assertEquals(3.886707e6, sampleAt(promtool, 25).value(), "_sum");
        assertEquals(13867.0, sampleAt(promtool, 26).value(), "_count");
        assertEquals(new MetricSample("go_info", Map.of("version", "go1.17"), 1, Long.MIN_VALUE, 35), promtool.samples().getLast());

        PrometheusScrape expfmt = PrometheusTextParser.parseStrict(Corpus.read("prometheus/prom-common-expfmt-text.prom"));
        assertEquals(ExpositionFormat.PROMETHEUS_TEXT_0_0_4, expfmt.format());
        assertEquals(248, expfmt.samples().size());
        MetricSample requests = expfmt.samples().stream().filter(s -> s.name().equals("http_requests_total")).findFirst().orElseThrow();
        assertEquals(List.of("code", "handler", "method"), List.copyOf(requests.labels().keySet()));
        assertEquals(119.0, requests.value());
        assertEquals(179886.5000000001, expfmt.samples().stream().filter(s -> s.name().equals("http_request_duration_microseconds_sum")
                && "prometheus".equals(s.labels().get("handler"))).findFirst().orElseThrow().value());
        assertEquals(new MetricSample("prometheus_target_interval_length_seconds_count", Map.of("interval", "1s"), 117, Long.MIN_VALUE, 322),
                expfmt.samples().getLast());
    }

    /** The sample of {@code scrape} on 1-based line {@code line}. */
    private static MetricSample sampleAt(PrometheusScrape scrape, int line) {
        return scrape.samples().stream().filter(s -> s.lineNumber() == line).findFirst()
                .orElseThrow(() -> new AssertionError("no sample on line " + line));
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
        var s = PrometheusTextParser.parse(Corpus.read("prometheus/alltypes.5mfs.om.txt")).samples();
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
    /**
     * Corpus bug 40: an OpenMetrics exposition ({@code # EOF}, {@code # UNIT}) dates samples in seconds, integer or
     * not (OpenMetrics 1.0 "Timestamps": "Timestamps MUST be Unix Epoch in seconds"); 1764583200 is
     * 2025-12-01T10:00:00Z, not 1970.
     */
    @Test
    void bug40OpenMetricsIntegerTimestampsAreSeconds() throws IOException {
        var scrape = PrometheusTextParser.parse(Corpus.read("bugs/40-openmetrics-int-seconds-ts.txt"));
        assertEquals(ExpositionFormat.OPENMETRICS_1_0, scrape.format());
        assertEquals(List.of(1_764_583_200_000L, 1_764_583_200_500L), scrape.samples().stream().map(MetricSample::timestampMs).toList());
        assertEquals(java.time.Instant.parse("2025-12-01T10:00:00Z").toEpochMilli(), scrape.samples().getFirst().timestampMs());
    }

    /**
     * The kind of bug 40: the timestamp's unit is the declared format's. The scrape's {@code Content-Type} decides when
     * it is known ({@code application/openmetrics-text}: seconds; {@code text/plain}: Prometheus text 0.0.4, integer
     * milliseconds, a fraction being no timestamp of that format); without one the body does ({@code # EOF} or
     * {@code # UNIT}: OpenMetrics).
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", value = {
            "application/openmetrics-text; version=1.0.0; charset=utf-8 | m 1 1764583200 | 1764583200000",
            "application/openmetrics-text; version=1.0.0; charset=utf-8 | m 1 1764583200.25 | 1764583200250",
            "application/openmetrics-text | m 1 -1.5 | -1500",
            "APPLICATION/OPENMETRICS-TEXT;version=0.0.1 | m 1 1764583200 | 1764583200000",
            "text/plain; version=0.0.4; charset=utf-8 | m 1 1764583200000 | 1764583200000",
            "text/plain | m 1 1764583200000 | 1764583200000",
            "'' | m 1 1764583200000 | 1764583200000",
            "'' | m 1 1764583200⏎# EOF | 1764583200000",
            "'' | # UNIT m_seconds seconds⏎m_seconds 1 1764583200⏎# EOF | 1764583200000",
            "'' | m 1 1764583200.5⏎# EOF⏎ | 1764583200500"})
    void theTimestampUnitIsTheDeclaredFormats(String contentType, String body, long expectedMs) {
        String text = body.replace("⏎", "\n");
        if (contentType.startsWith("application/openmetrics") || contentType.startsWith("APPLICATION")) {
            text = text.endsWith("# EOF") || text.endsWith("# EOF\n") ? text : text + "\n# EOF\n";
        }
        var scrape = PrometheusTextParser.parse(text, contentType);
        assertEquals(expectedMs, scrape.samples().getFirst().timestampMs(), contentType + " " + body);
        assertEquals(List.of(), scrape.warnings());
    }

    /** OpenMetrics 1.0 "EOF": "The exposition MUST end with an EOF"; without it the scrape may have been cut short. */
    @Test
    void aDeclaredOpenMetricsScrapeWithoutEofIsReadWithAWarningAndRejectedStrictly() {
        var scrape = PrometheusTextParser.parse("m 1\nn 2\n", "application/openmetrics-text; version=1.0.0");
        assertEquals(2, scrape.samples().size());
        assertEquals(List.of("line 2: missing '# EOF': an OpenMetrics exposition ends with it (the scrape may be truncated)"), scrape.warnings());
        var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parseStrict("m 1\nn 2\n", "application/openmetrics-text"));
        assertEquals(2, e.lineNumber());
    }

    @Test
    void aFractionalTimestampIsNoPrometheusTextTimestamp() {
        var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parseStrict("m 1 1764583200.5\n", "text/plain; version=0.0.4"));
        assertEquals(1, e.lineNumber());
        assertTrue(e.getMessage().contains("integer milliseconds"), e.getMessage());
        // a prober's parse reads it as the seconds only OpenMetrics writes, and says so
        var scrape = PrometheusTextParser.parse("m 1 1764583200.5\nn 2 1764583200000\n");
        assertEquals(List.of(1_764_583_200_500L, 1_764_583_200_000L), scrape.samples().stream().map(MetricSample::timestampMs).toList());
        assertEquals(List.of("line 1: timestamp '1764583200.5' is not Prometheus text's integer milliseconds: read as OpenMetrics seconds"),
                scrape.warnings());
    }

    /**
     * Corpus bug 41: Prometheus 3 writes a metric name outside the legacy charset quoted, inside the braces
     * ({@code {"http.server.active_requests","http.route"="/api/items"} 3}), and so in {@code # HELP}/{@code # TYPE};
     * the sample reads under its name, and the rest of the scrape is read.
     */
    @Test
    void bug41QuotedUtf8MetricNamesParseAndTheRestIsRead() throws IOException {
        var scrape = PrometheusTextParser.parse(Corpus.read("bugs/41-prom-utf8-quoted-name.txt"));
        assertEquals(List.of("process_cpu_usage", "http.server.active_requests", "jvm_memory_used_bytes", "jvm_memory_max_bytes"),
                scrape.samples().stream().map(MetricSample::name).toList());
        var active = scrape.samples().get(1);
        assertEquals(java.util.Map.of("http.route", "/api/items"), active.labels());
        assertEquals(3.0, active.value());
        assertEquals(4.0e8, scrape.samples().get(3).value());
        assertEquals(List.of(), scrape.warnings());
    }

    /**
     * The kind of bug 41: Prometheus 3 UTF-8 names (prometheus/proposals "UTF-8 support for metric and label names";
     * prometheus/common expfmt), in both formats: a quoted metric name first in the braces, quoted label names,
     * quoted names in {@code # HELP}, {@code # TYPE} and {@code # UNIT}, with the label-value escapes; a name in legacy
     * charset may be quoted too.
     */
    @ParameterizedTest
    @CsvSource(delimiterString = " | ", value = {
            "{\"http.server.requests\"} 1 | http.server.requests | {}",
            "{ \"a.b\" , \"c.d\"=\"x\" } 1 | a.b | {c.d=x}",
            "m{\"ünïcödé label\"=\"v\",le=\"1\"} 1 | m | {ünïcödé label=v, le=1}",
            "{\"say \\\"hi\\\"\\n\"} 1 | say \"hi\"\\n | {}",
            "{\"legacy_name\"} 1 | legacy_name | {}",
            "{\"日本語\",\"ラベル\"=\"値\"} 1 | 日本語 | {ラベル=値}"})
    void quotedUtf8NamesReadInBothFormats(String line, String name, String labels) {
        String expectedName = name.replace("\\n", "\n");
        for (String ct : List.of("text/plain; version=1.0.0; escaping=allow-utf-8", "application/openmetrics-text; version=1.0.0")) {
            String help = "# HELP \"" + expectedName.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n") + "\" help text\n";
            String text = help + line + "\nnext_metric 2\n" + (ct.startsWith("application") ? "# EOF\n" : "");
            var scrape = PrometheusTextParser.parseStrict(text, ct);
            assertEquals(expectedName, scrape.samples().get(0).name(), ct);
            assertEquals(labels, scrape.samples().get(0).labels().toString(), ct);
            assertEquals("next_metric", scrape.samples().get(1).name(), ct);
        }
    }

    @Test
    void badQuotedNamesAreRejectedWithTheirLine() {
        for (String bad : List.of("{\"a.b\" 1", "{\"a.b\"=1} 1", "m{\"a.b\"} 1", "{\"a\",\"b\"} 1", "{\"\"} 1",
                "{\"a\\q\"} 1", "\"a.b\" 1", "{x=\"1\",\"a.b\"} 1")) {
            var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parse("ok 1\n" + bad + "\n"), bad);
            assertEquals(2, e.lineNumber(), bad);
        }
    }
    /**
     * OpenMetrics values that cannot be trusted (a negative or NaN counter, buckets that are not cumulative, a count
     * that is not the +Inf bucket) are flagged with their line even by a prober's lenient parse; form defects (order,
     * metadata placement) only fail a strict one.
     */
    @Test
    void untrustedOpenMetricsValuesAreFlaggedByTheLenientParse() {
        String text = """
                # TYPE a counter
                a_total -1
                # TYPE h histogram
                h_bucket{le="1"} 5
                h_bucket{le="+Inf"} 3
                h_count 4
                h_sum 2
                # EOF
                """;
        var scrape = PrometheusTextParser.parse(text);
        assertEquals(5, scrape.samples().size());
        assertEquals(List.of("line 2: 'a_total' is -1.0: a counter's _total is neither negative nor NaN",
                "line 5: bucket le=+Inf of 'h' below the one before (buckets are cumulative)",
                "line 6: _count 4.0 of 'h' is not its +Inf bucket's 3.0"), scrape.warnings());
        var e = assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parseStrict(text));
        assertEquals(2, e.lineNumber());
        var form = PrometheusTextParser.parse("# TYPE a gauge\na 1\n# HELP a late\n# EOF\n");
        assertEquals(List.of(), form.warnings());
        assertEquals("line 3: # HELP of 'a' after its samples (metadata comes first)",
                assertThrows(PrometheusParseException.class, () -> PrometheusTextParser.parseStrict("# TYPE a gauge\na 1\n# HELP a late\n# EOF\n")).getMessage());
    }
    /** Prometheus text too: its untrusted values (a negative counter, buckets not cumulative) are flagged with their line. */
    @Test
    void untrustedPrometheusTextValuesAreFlagged() {
        var scrape = PrometheusTextParser.parse("""
                # TYPE requests_total counter
                requests_total{code="200"} -3
                # TYPE latency_seconds histogram
                latency_seconds_bucket{le="0.1"} 7
                latency_seconds_bucket{le="+Inf"} 5
                latency_seconds_count 5
                latency_seconds_sum 1.5
                up 1
                """);
        assertEquals(6, scrape.samples().size());
        assertEquals(List.of("line 2: 'requests_total' is -3.0: a counter's value is neither negative nor NaN",
                "line 5: bucket le=+Inf of 'latency_seconds' below the one before (buckets are cumulative)"), scrape.warnings());
    }
}
