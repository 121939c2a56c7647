package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code ./richter run}: a CI gate on one plan. Creates the plan, or replaces the team's plan of the same name
 * ({@code POST /plans}, or {@code PUT /plans/{planId}} of the first plan of {@code GET /plans} with that name), starts a
 * run ({@code POST /plans/{planId}/runs}), prints its progress ({@link RunWatcher}), writes the report
 * ({@code report.json}, {@code report.html}) and a JUnit XML file ({@link JUnitReport}), and compares the run with the
 * plan's previous finished run ({@code GET /runs/{runId}/compare?with=previous}).
 *
 * <p>Where it sends: {@code --api} (default {@code $RICHTER_API_URL}, else the local stack's
 * {@code http://127.0.0.1:3000}), with {@code --token} (default {@code $RICHTER_TOKEN}, else a token of the local
 * identity provider for {@code --team}).
 *
 * <p>While the plan or one of its targets is still held by a run that is finishing (409 {@code PlanInUse} on the
 * replacement, 409 {@code TargetLeased} on the start: a run's leases are released just after its report), it waits
 * {@value #BUSY_RETRY_S} s and tries again, printing a line each time, for up to {@code --busy-wait-s} seconds
 * (default {@value #DEFAULT_BUSY_WAIT_S}) of waiting in all.
 *
 * <p>Exit status: {@value #PASSED} when the run passed with no regression against the previous run (or had none);
 * {@value #FAILED} when it did not pass (its outcome is not {@code PASSED}, it failed to start or ended with no report,
 * the plan or its targets stayed in use past {@code --busy-wait-s}, or the API refused or could not be reached); {@value #REGRESSED} when it passed but regressed against the previous
 * run; {@value #USAGE} for bad arguments or a plan file that is not a plan (missing, not JSON, refused by the API's
 * validation: each path and reason printed) — the sysexits {@code EX_USAGE} code.
 */
@Command(name = "./richter run", mixinStandardHelpOptions = true,
        description = "Creates or updates the plan, runs it, writes the report and a JUnit XML file; exit 0 passed,"
                + " 1 failed (or the plan's targets stayed in use past --busy-wait-s), 2 regression against the previous"
                + " run, 64 bad arguments.")
public final class RunMain implements Callable<Integer> {
    /** Passed, no regression. */
    static final int PASSED = 0;
    /** Did not pass. */
    static final int FAILED = 1;
    /** Passed, with a regression against the previous run. */
    static final int REGRESSED = 2;
    /** Bad arguments or plan (sysexits.h {@code EX_USAGE}). */
    static final int USAGE = 64;
    /** Seconds between two tries while the plan or its targets are in use (409 {@code PlanInUse}, {@code TargetLeased}). */
    static final long BUSY_RETRY_S = 5;
    /** Default of {@code --busy-wait-s}: how long, in all, it waits for the plan and its targets to be free, seconds. */
    static final long DEFAULT_BUSY_WAIT_S = 300;

    /** Waits between two tries; {@link Thread#sleep} but in tests. */
    @FunctionalInterface
    interface Pause {
        /** Waits {@code ms} milliseconds. */
        void pause(long ms) throws InterruptedException;
    }

    @Option(names = "--plan", required = true, paramLabel = "FILE", description = "the plan, as POST /plans takes it (JSON)")
    Path planFile;

    @Mixin
    ApiOptions target = new ApiOptions();

    @Option(names = "--out", paramLabel = "DIR", description = "where report.json, report.html and junit.xml go"
            + " (default: build/reports/<runId>)")
    Path outDir;

    @Option(names = "--junit", paramLabel = "FILE", description = "the JUnit XML file (default: <out>/junit.xml)")
    Path junitFile;

    @Option(names = "--timeout-s", description = "give up on the run after this long, seconds (default: 3600)")
    long timeoutS = 3600;

    @Option(names = "--busy-wait-s", description = "while the plan or its targets are held by another run (409 PlanInUse,"
            + " TargetLeased), try again every " + BUSY_RETRY_S + " s for up to this long, seconds; 0: fail at once"
            + " (default: " + DEFAULT_BUSY_WAIT_S + ")")
    long busyWaitS = DEFAULT_BUSY_WAIT_S;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final Pause pause;
    /** How long this gate has waited so far for the plan and its targets to be free, milliseconds. */
    private long busyWaitedMs;

    /** Reads the process environment and prints to the standard streams. */
    public RunMain() {
        this(System.getenv(), System.out, System.err);
    }

    RunMain(Map<String, String> env, PrintStream out, PrintStream err) {
        this(env, out, err, Thread::sleep);
    }

    RunMain(Map<String, String> env, PrintStream out, PrintStream err, Pause pause) {
        this.env = env;
        this.out = out;
        this.err = err;
        this.pause = pause;
    }

    /** Runs the command and exits with its status. */
    public static void main(String[] args) {
        System.exit(run(new RunMain(), args));
    }

    /** Parses {@code args} into {@code command} and runs it; returns the exit status ({@value #USAGE} for bad arguments). */
    static int run(RunMain command, String[] args) {
        CommandLine cli = new CommandLine(command).setOut(new PrintWriter(command.out, true))
                .setErr(new PrintWriter(command.err, true));
        cli.setParameterExceptionHandler((e, a) -> {
            command.err.println(e.getMessage());
            e.getCommandLine().usage(command.err);
            return USAGE;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() throws IOException, InterruptedException {
        if (timeoutS <= 0) {
            err.println("--timeout-s: must be a positive number of seconds");
            return USAGE;
        }
        if (busyWaitS < 0) {
            err.println("--busy-wait-s: must be 0 or a positive number of seconds");
            return USAGE;
        }
        JsonNode plan;
        String planText;
        try {
            planText = Files.readString(planFile);
            plan = Json.MAPPER.readTree(planText);
        } catch (NoSuchFileException e) {
            err.println("--plan " + planFile + ": no such file");
            return USAGE;
        } catch (com.fasterxml.jackson.core.JacksonException e) {
            err.println("--plan " + planFile + ": not JSON: " + e.getOriginalMessage());
            return USAGE;
        }
        if (plan == null || !plan.path("name").isTextual() || plan.path("name").asText().isBlank()) {
            err.println("--plan " + planFile + ": name: required, the plan's name (the plan of that name is created or replaced)");
            return USAGE;
        }
        String base = target.base(env);
        ApiClient client = new ApiClient(base, target.bearer(env));
        try {
            return gate(client, plan.path("name").asText(), planText);
        } catch (ConnectException e) {
            err.println("no Richter API answers at " + base + ": start the local stack with ./richter stack, or set --api");
            return FAILED;
        } catch (Refused r) {
            err.println(r.getMessage());
            return r.status;
        }
    }

    private int gate(ApiClient client, String name, String planText) throws IOException, InterruptedException {
        String planId = upsert(client, name, planText);
        ApiClient.Response started;
        while ((started = client.post("/plans/" + planId + "/runs", null)).status() == 409
                && waitWhileBusy(started, "TargetLeased", "run of plan " + planId + " not started")) {
            // the targets' lease is released just after the previous run's report
        }
        if (started.status() != 202) {
            throw refused("run not started", started, FAILED);
        }
        String runId = started.json().path("runId").asText();
        out.println("plan " + planId + " (" + name + "): run " + runId + " started");
        JsonNode last;
        try {
            last = RunWatcher.watch(client, runId, timeoutS * 1000, out::println);
        } catch (IllegalStateException e) {
            err.println(e.getMessage());
            return FAILED;
        }
        if (!last.path("reportReady").asBoolean(false)) {
            err.println("run " + runId + " ended " + last.path("run").path("status").asText() + " with no report: "
                    + last.path("failureReason").asText("see GET /runs/" + runId));
            return FAILED;
        }
        ApiClient.Response json = client.get("/runs/" + runId + "/report");
        ApiClient.Response html = client.get("/runs/" + runId + "/report?format=html");
        if (json.status() != 200 || html.status() != 200) {
            throw refused("report not read", json.status() != 200 ? json : html, FAILED);
        }
        JsonNode report = json.json();
        Optional<JsonNode> comparison = compare(client, runId);
        Path dir = outDir != null ? outDir : LocalAwsStack.rootFromEnv().resolve("build/reports").resolve(runId);
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("report.json"), json.body());
        Files.writeString(dir.resolve("report.html"), html.body());
        Path junit = junitFile != null ? junitFile : dir.resolve("junit.xml");
        if (junit.toAbsolutePath().getParent() != null) {
            Files.createDirectories(junit.toAbsolutePath().getParent());
        }
        Files.writeString(junit, JUnitReport.xml(name, runId, report.path("generatedAtMs").asLong(),
                JUnitReport.cases(report, comparison.orElse(null))));
        String outcome = report.path("outcome").asText();
        out.println("outcome " + outcome + ": " + report.path("outcomeReason").asText());
        out.println("report " + dir.resolve("report.html") + " (JSON beside it), JUnit " + junit);
        if (comparison.isEmpty()) {
            out.println("since the last run: nothing to compare with (the plan's first finished run)");
        } else {
            JsonNode c = comparison.get();
            out.println("since the last run (" + c.path("baselineRunId").asText() + "): "
                    + (c.path("regressed").asBoolean() ? "REGRESSION" : "no regression"));
            c.path("regressions").forEach(r -> out.println("  " + r.asText()));
        }
        if (!outcome.equals("PASSED")) {
            return FAILED;
        }
        return comparison.map(c -> c.path("regressed").asBoolean()).orElse(false) ? REGRESSED : PASSED;
    }

    /** The comparison with the previous run; empty for the plan's first finished run. */
    private Optional<JsonNode> compare(ApiClient client, String runId) throws IOException, InterruptedException {
        ApiClient.Response r = client.get("/runs/" + runId + "/compare?with=previous");
        if (r.status() == 404 && r.json() != null && r.json().path("error").asText().equals("NoPreviousRun")) {
            return Optional.empty();
        }
        if (r.status() != 200) {
            throw refused("run not compared", r, FAILED);
        }
        return Optional.of(r.json());
    }

    /**
     * Whether to try {@code r} again: true, after printing why and waiting {@value #BUSY_RETRY_S} s, when it is a 409
     * {@code code} and the gate has not yet waited {@code --busy-wait-s} in all ({@link #busyWaitedMs}, which this adds
     * to); false for any other answer, or once the bound is reached.
     */
    private boolean waitWhileBusy(ApiClient.Response r, String code, String what) throws InterruptedException {
        if (r.status() != 409 || r.json() == null || !code.equals(r.json().path("error").asText())) {
            return false;
        }
        long retryMs = BUSY_RETRY_S * 1000;
        if (busyWaitedMs + retryMs > busyWaitS * 1000) {
            err.println(what + ": still " + code + " after " + busyWaitedMs / 1000 + " s of waiting (--busy-wait-s " + busyWaitS + ")");
            return false;
        }
        out.println(what + ": " + code + " (" + r.json().path("message").asText() + "); trying again in " + BUSY_RETRY_S
                + " s (waited " + busyWaitedMs / 1000 + " of " + busyWaitS + " s)");
        pause.pause(retryMs);
        busyWaitedMs += retryMs;
        return true;
    }

    /**
     * The id of the team's plan named {@code name}, replaced by the file's; a new plan when there is none. A replacement
     * refused 409 {@code PlanInUse} is tried again ({@link #waitWhileBusy}).
     */
    private String upsert(ApiClient client, String name, String planText) throws IOException, InterruptedException {
        String cursor = null;
        do {
            ApiClient.Response page = client.get("/plans?limit=100" + (cursor == null ? "" : "&cursor="
                    + URLEncoder.encode(cursor, StandardCharsets.UTF_8)));
            if (page.status() != 200) {
                throw refused("plans not listed", page, FAILED);
            }
            for (JsonNode p : page.json().path("items")) {
                if (name.equals(p.path("plan").path("name").asText(p.path("name").asText()))) {
                    String planId = p.path("plan").path("planId").asText(p.path("planId").asText());
                    ApiClient.Response put;
                    while ((put = client.put("/plans/" + planId, planText)).status() == 409
                            && waitWhileBusy(put, "PlanInUse", "plan " + planId + " not replaced")) {
                        // the plan's lease is released just after its previous run's report
                    }
                    if (put.status() != 200) {
                        throw refused("plan " + planId + " not replaced", put, put.status() == 400 ? USAGE : FAILED);
                    }
                    out.println("plan " + planId + " replaced (version " + put.json().path("version").asLong() + ")");
                    return planId;
                }
            }
            cursor = page.json().path("nextCursor").asText(null);
        } while (cursor != null);
        ApiClient.Response created = client.post("/plans", planText);
        if (created.status() != 201) {
            throw refused("plan not created", created, created.status() == 400 ? USAGE : FAILED);
        }
        String planId = created.json().path("plan").path("planId").asText(created.json().path("planId").asText());
        out.println("plan " + planId + " created");
        return planId;
    }

    /** The API's refusal as one message: status, error code, message and each {@code path: reason}. */
    private static Refused refused(String what, ApiClient.Response r, int status) {
        StringBuilder b = new StringBuilder(what + ": HTTP " + r.status());
        JsonNode j = r.json();
        if (j == null) {
            b.append(' ').append(r.body());
        } else {
            b.append(' ').append(j.path("error").asText()).append(": ").append(j.path("message").asText());
            j.path("errors").forEach(e -> b.append("\n  ").append(e.path("path").asText()).append(": ")
                    .append(e.path("reason").asText()));
        }
        return new Refused(b.toString(), status);
    }

    /** The API refused a step of the gate; {@code status} is the exit status. */
    private static final class Refused extends UncheckedIOException {
        final int status;

        Refused(String message, int status) {
            super(message, new IOException(message));
            this.status = status;
        }
    }
}
