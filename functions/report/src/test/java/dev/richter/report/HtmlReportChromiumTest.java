package dev.richter.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.richter.common.model.CheckResult;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Opens report pages in headless Chromium (the DOM after scripts ran, and the browser's console on stderr): the charts
 * are drawn, the call graph is there, and nothing reaches the console. Skipped when Chromium is not installed
 * ({@code -Drichter.chromium=<path>}, default {@code /usr/bin/chromium}; Debian package {@code chromium}).
 */
class HtmlReportChromiumTest {
    static final Path CHROMIUM = Path.of(System.getProperty("richter.chromium", "/usr/bin/chromium"));
    static final Path OUT = Path.of("target", "report-pages");

    /** What Chromium made of a page. */
    record Opened(String dom, List<String> console) {}

    static Opened open(Path page) throws IOException, InterruptedException {
        Path profile = Files.createTempDirectory("richter-chromium");
        Path stdout = profile.resolve("dom.html");
        Path stderr = profile.resolve("stderr.log");
        Process p = new ProcessBuilder(CHROMIUM.toString(), "--headless", "--no-sandbox", "--disable-gpu",
                "--user-data-dir=" + profile.resolve("profile"), "--enable-logging=stderr", "--v=0", "--window-size=1280,2400",
                "--virtual-time-budget=5000", "--dump-dom", page.toAbsolutePath().toUri().toString())
                .redirectOutput(stdout.toFile()).redirectError(stderr.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("chromium did not finish within 120 s");
        }
        List<String> console = new ArrayList<>();
        for (String line : Files.readAllLines(stderr, StandardCharsets.UTF_8)) {
            if (line.contains(":CONSOLE")) {
                console.add(line);
            }
        }
        return new Opened(Files.readString(stdout, StandardCharsets.UTF_8), console);
    }

    static Path write(String name, Report r) throws IOException {
        Files.createDirectories(OUT);
        Path page = OUT.resolve(name);
        Files.writeString(page, HtmlReport.render(r), StandardCharsets.UTF_8);
        return page;
    }

    static int count(String text, String needle) {
        return text.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
    }

    @Test
    void theReportDrawsItsChartsAndCallGraphWithoutConsoleErrors() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "Chromium is not installed at " + CHROMIUM);
        Opened o = open(write("shop.html", SampleReports.shop(true)));
        assertEquals(List.of(), o.console(), "the browser console stays empty");
        assertTrue(o.dom().contains("data-charts=\"4\""), "throughput, latency, errors and the HDR curves were drawn");
        assertEquals(4, count(o.dom(), "class=\"uplot"), "four uPlot charts");
        assertTrue(count(o.dom(), "<canvas") >= 4, "each chart has its canvas");
        assertTrue(o.dom().contains("Throughput: target vs achieved (sent per second)"));
        assertTrue(o.dom().contains(">p99<") || o.dom().contains("p99</th>"), "the latency chart's legend names p99");
        assertTrue(o.dom().contains("class=\"callgraph\""), "the call graph is drawn");
        assertTrue(o.dom().contains("cg-edge e-real") && o.dom().contains("cg-edge e-mock"));
        assertTrue(o.dom().contains("Resilience verdict"));
    }

    @Test
    void aRunThatMeasuredNothingOpensCleanlyWithoutCharts() throws Exception {
        assumeTrue(Files.isExecutable(CHROMIUM), "Chromium is not installed at " + CHROMIUM);
        var statics = List.of(new CheckResult("target-registered", CheckResult.Outcome.FAIL, "order", "service is not registered"));
        Report r = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, List.of(), statics, List.of(), List.of(), null, 1);
        Opened o = open(write("static-failure.html", r));
        assertEquals(List.of(), o.console());
        assertTrue(o.dom().contains("data-charts=\"0\""), "the glue ran and found nothing to chart");
        assertTrue(o.dom().contains("not measured"));
    }
}
