package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./richter import}: imports a recording into a stored traffic set through the HTTP API's
 * {@code POST /traffic-sets} (the same route, checks and storage as any client), and prints what was kept.
 *
 * <p>Where it sends: {@code --api} (default {@code $RICHTER_API_URL}, else the local stack's
 * {@code http://127.0.0.1:3000}), with {@code --token} (default {@code $RICHTER_TOKEN}), else a token of the local
 * identity provider for {@code --team} (what {@code ./richter token} prints). HAR files go as {@code application/json}, logs as
 * {@code text/plain}; the bytes are sent as they are on disk.
 *
 * <p>Exit status: 0 when the set was stored; 1 when the API refused the file (each problem printed as
 * {@code <position>: <reason>}, e.g. {@code access.log:17: no request line}) or could not be reached; 2 for bad
 * arguments (picocli's usage message).
 */
@Command(name = "./richter import", mixinStandardHelpOptions = true,
        description = "Imports a HAR file or an access log into a stored traffic set (POST /traffic-sets).")
public final class ImportMain implements Callable<Integer> {
    /** The local stack's API, where {@code --api} and {@code $RICHTER_API_URL} are absent. */
    public static final String LOCAL_API = "http://127.0.0.1:3000";

    @Option(names = "--format", required = true, description = "har, nginx, apache or alb")
    String format;

    @Option(names = "--log-format", description = "an nginx log_format directive, for --format nginx with a custom format")
    String logFormat;

    @Mixin
    ApiOptions target = new ApiOptions();

    @Parameters(index = "0", paramLabel = "FILE", description = "the recording")
    Path file;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    /** Reads the process environment and prints to the standard streams. */
    public ImportMain() {
        this(System.getenv(), System.out, System.err);
    }

    ImportMain(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** Runs the command and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(new ImportMain(), args));
    }

    /** Parses {@code args} into {@code command} and runs it; returns the exit status. */
    static int run(ImportMain command, String[] args) {
        return new CommandLine(command).setOut(new PrintWriter(command.out, true))
                .setErr(new PrintWriter(command.err, true)).execute(args);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        byte[] body;
        try {
            body = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            err.println(file + ": no such file");
            return 1;
        }
        String base = target.base(env);
        String token = target.bearer(env);
        StringBuilder query = new StringBuilder("/traffic-sets?format=").append(encode(format))
                .append("&file=").append(encode(file.getFileName().toString()));
        if (logFormat != null) {
            query.append("&logFormat=").append(encode(logFormat));
        }
        String contentType = "har".equalsIgnoreCase(format) ? "application/json" : "text/plain; charset=utf-8";
        ApiClient.Response r;
        try {
            r = new ApiClient(base, token).sendBytes("POST", query.toString(), body, Map.of("content-type", contentType));
        } catch (ConnectException e) {
            err.println("no Richter API answers at " + base + ": start the local stack with ./richter stack, or set --api");
            return 1;
        }
        if (r.status() != 201 || r.json() == null) {
            JsonNode j = r.json();
            if (j == null) {
                err.println("not imported: HTTP " + r.status() + " " + r.body());
            } else if (j.path("errors").isEmpty()) {
                err.println("not imported: HTTP " + r.status() + " " + j.path("error").asText() + ": " + j.path("message").asText());
            } else {
                // the problems by position; the message repeats the first of them
                err.println("not imported: HTTP " + r.status() + " " + j.path("error").asText() + " (is --format " + format
                        + " the file's format?)");
                for (JsonNode e : j.path("errors")) {
                    err.println("  " + e.path("path").asText() + ": " + e.path("reason").asText());
                }
            }
            return 1;
        }
        summary(r.json()).lines().forEach(out::println);
        return 0;
    }

    /**
     * What a person reads after an import: the set's id, counts, endpoints by weight (with their host when the recording
     * names one: the same path on two hosts is two endpoints), skips and problems.
     */
    static String summary(JsonNode set) {
        JsonNode c = set.path("counts");
        StringBuilder b = new StringBuilder();
        b.append("traffic set ").append(set.path("setId").asText()).append(" (").append(set.path("format").asText())
                .append(", ").append(set.path("name").asText()).append("): ").append(c.path("imported").asInt())
                .append(" of ").append(c.path("entriesRead").asInt()).append(" entries imported into ")
                .append(set.path("endpoints").size()).append(" endpoints; ").append(c.path("scrubbedValues").asInt())
                .append(" values scrubbed into slots\n");
        for (JsonNode e : set.path("endpoints")) {
            String host = e.path("host").asText("");
            b.append(String.format(Locale.ROOT, "  %5.1f %%  %s %s%s%n", 100 * e.path("weight").asDouble(),
                    e.path("method").asText(), host.isEmpty() ? "" : host, e.path("pathTemplate").asText()));
        }
        set.path("skipped").properties().forEach(s -> b.append("  skipped ").append(s.getValue().asInt()).append(": ")
                .append(s.getKey()).append('\n'));
        for (JsonNode p : set.path("problems")) {
            b.append("  ").append(p.path("position").asText()).append(": ").append(p.path("reason").asText()).append('\n');
        }
        return b.toString();
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
