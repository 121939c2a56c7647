package dev.richter.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Properties;

/**
 * The uPlot charting library (MIT, github.com/leeoniya/uPlot) as the report inlines it: the minified IIFE build and its
 * style sheet, read once from the {@code org.webjars.npm:uplot} WebJar on the classpath (the version pinned in the
 * root pom's {@code uplot.version}, filtered into {@code dev/richter/report/uplot.properties} at build time; the page
 * names it). About 50 KB of script.
 */
public final class UPlot {
    private static final String PROPERTIES = "dev/richter/report/uplot.properties";
    private static final String VERSION = load(PROPERTIES, p -> {
        Properties props = new Properties();
        props.load(p);
        return props.getProperty("version");
    });
    private static final String JS = text("dist/uPlot.iife.min.js");
    private static final String CSS = text("dist/uPlot.min.css");

    private UPlot() {}

    /** The library's version, e.g. {@code 1.6.30}. */
    public static String version() {
        return VERSION;
    }

    /** The minified script, defining the global {@code uPlot}; safe to inline (it holds no {@code </script>}). */
    public static String js() {
        return JS;
    }

    /** The library's style sheet. */
    public static String css() {
        return CSS;
    }

    private static String text(String file) {
        String s = load("META-INF/resources/webjars/uplot/" + VERSION + "/" + file, in -> new String(in.readAllBytes(), StandardCharsets.UTF_8));
        if (s.toLowerCase(Locale.ROOT).contains("</script")) {
            throw new IllegalStateException("uPlot " + file + " contains </script and cannot be inlined");
        }
        return s;
    }

    private interface ResourceReader<T> {
        T read(InputStream in) throws IOException;
    }

    private static <T> T load(String resource, ResourceReader<T> reader) {
        try (InputStream in = UPlot.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is not on the classpath: the report needs the"
                        + " org.webjars.npm:uplot dependency");
            }
            return reader.read(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
