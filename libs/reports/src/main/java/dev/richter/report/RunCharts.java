package dev.richter.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * A run's charts as one script, {@code dev/richter/report/run-charts.js}: it defines the global
 * {@code RichterCharts.draw(d, root)}, which draws throughput (target against achieved), latency from the intended
 * send time (p50, p90, p99), errors per second by kind, each with the run's marks (steps, verdicts, alerts, abort),
 * and the HDR latency curves, with {@link UPlot}. The HTML report inlines it and the console serves it
 * ({@code GET /console/run-charts.js}), so the two draw a run the same way; the data's shape is in the script's
 * header and in the report's {@code chartData}.
 */
public final class RunCharts {
    private static final String JS = read();

    private RunCharts() {}

    /** The script (about 5 KB); safe to inline (it holds no {@code </script>}). Needs uPlot's global {@code uPlot}. */
    public static String js() {
        return JS;
    }

    private static String read() {
        try (InputStream in = RunCharts.class.getResourceAsStream("run-charts.js")) {
            if (in == null) {
                throw new IllegalStateException("dev/richter/report/run-charts.js is not on the classpath");
            }
            String s = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            if (s.toLowerCase(Locale.ROOT).contains("</script")) {
                throw new IllegalStateException("run-charts.js contains </script and cannot be inlined");
            }
            return s;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
