package dev.richter.local;

import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the local stack alone and keeps it up until interrupted ({@code ./richter stack}): the
 * HTTP API, the Lambda Invoke API, DynamoDB, Step Functions and the event capture, for trying the
 * API by hand. When its API answers it prints one line, {@code local stack ready: http://127.0.0.1:3000 answers (pid
 * <pid>; ...)}, which {@code ./richter wait} stands for in scripts. SIGTERM, SIGINT (Ctrl-C) or SIGHUP stop every
 * process it started, also while it is starting, and it says so: {@code stopping the local stack ...}, then
 * {@code local stack stopped}.
 *
 * <p>The HTTP API takes JWTs of the local identity provider ({@code ./richter token} prints one). With
 * {@code --insecure-dev-auth} it also takes requests without a token that name their team in {@code x-richter-team};
 * the stack then says so loudly at start. {@code --verbose} prints one line per Lambda invocation and API request
 * (always written to {@code build/local/logs/lambda.log}).
 *
 * <p>Limits are AWS's unless {@code RICHTER_LOCAL_LIMITS} lowers them or sets template parameters,
 * e.g. {@code RICHTER_LOCAL_LIMITS=historyEventsPerExecution=400,param.StageName=dev ./richter stack}
 * (see {@link LocalLimits#parse(String)}); the stack prints the effective limits when it starts. Faults are off
 * unless {@code RICHTER_LOCAL_FAULTS} arms some (see {@link LocalFaults#parse(String)}); the stack then says so loudly.
 */
public final class StackMain {
    /** How long the started stack's API may take to answer {@code GET /openapi.json} before the start counts as failed. */
    static final Duration READY_WITHIN = Duration.ofSeconds(30);

    private StackMain() {}

    /**
     * Starts the stack, prints {@code local stack ready: ...} once its API answers, and waits for TERM or INT (or
     * Ctrl-C), which stop it through {@link #stopOnShutdown}.
     */
    public static void main(String[] args) throws Exception {
        Path root = LocalAwsStack.rootFromEnv();
        boolean insecure = Arrays.asList(args).contains("--insecure-dev-auth");
        for (String a : args) {
            if (!a.equals("--insecure-dev-auth") && !a.equals("--verbose")) {
                System.err.println("unknown option " + a + " (./richter stack [--insecure-dev-auth] [--verbose])");
                System.exit(2);
            }
        }
        LocalAwsStack stack = new LocalAwsStack(root, root.resolve("build/local"), LocalLimits.fromEnv(), System.out::println);
        if (insecure) {
            stack.insecureDevAuth();
        }
        if (Arrays.asList(args).contains("--verbose")) {
            stack.verbose();
        }
        // before start(): a TERM while the stack starts stops what it started so far, with no orphan process
        stopOnShutdown(stack, System.out);
        stack.start();
        String api = LocalAwsStack.apiBaseUrl();
        System.out.println("API: " + api + " (send Authorization: Bearer $(./richter token --team <team>));"
                + " OpenAPI: " + api + "/openapi.json; events: " + root.resolve("build/local/events.jsonl"));
        System.out.println("console: " + api + "/console (sign in on the local identity provider's page, naming your team)");
        if (insecure) {
            String bar = "!".repeat(100);
            System.out.println(bar);
            System.out.println("!! INSECURE DEV AUTH: requests WITHOUT a token are taken at their word: x-richter-team: <team> makes");
            System.out.println("!! the caller that team (x-richter-user: the caller). Anyone who reaches " + api);
            System.out.println("!! is any team. For trying the API by hand on this machine only; never on a shared host.");
            System.out.println(bar);
        }
        if (!apiAnswers(URI.create(api), READY_WITHIN)) {
            System.err.println("the local stack started but " + api + "/openapi.json did not answer within "
                    + READY_WITHIN.toSeconds() + " s; see " + root.resolve("build/local/logs"));
            System.exit(1);
        }
        long pid = ProcessHandle.current().pid();
        System.out.println("local stack ready: " + api + " answers (pid " + pid + "; Ctrl-C or kill -TERM " + pid + " stops it)");
        new CountDownLatch(1).await();   // until a signal: the shutdown hook stops the stack, then the JVM exits
    }

    /**
     * Stops {@code stack} when the JVM shuts down (SIGTERM, SIGINT/Ctrl-C, SIGHUP, or {@code System.exit}), saying so on
     * {@code out}: {@code stopping the local stack (its processes and servers)...} before, {@code local stack stopped}
     * after (or {@code local stack stopped with an error: ...}).
     *
     * @return the registered hook
     */
    static Thread stopOnShutdown(AutoCloseable stack, PrintStream out) {
        Thread hook = new Thread(() -> {
            out.println("stopping the local stack (its processes and servers)...");
            try {
                stack.close();
                out.println("local stack stopped");
            } catch (Exception e) {
                out.println("local stack stopped with an error: " + e);
            }
            out.flush();
        }, "local-stack-stop");
        Runtime.getRuntime().addShutdownHook(hook);
        return hook;
    }

    /**
     * Whether the HTTP API at {@code api} answers {@code GET /openapi.json} with 200 within {@code within}, asking every
     * 250 ms (each request bounded by 2 s).
     */
    static boolean apiAnswers(URI api, Duration within) throws InterruptedException {
        long deadlineNs = System.nanoTime() + within.toNanos();
        URI openApi = URI.create(api.toString().replaceAll("/+$", "") + "/openapi.json");
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build()) {
            while (true) {
                try {
                    HttpResponse<Void> r = http.send(HttpRequest.newBuilder(openApi).timeout(Duration.ofSeconds(2)).GET().build(),
                            HttpResponse.BodyHandlers.discarding());
                    if (r.statusCode() == 200) {
                        return true;
                    }
                } catch (IOException notYet) {
                    // refused or timed out: not up yet
                }
                if (System.nanoTime() >= deadlineNs) {
                    return false;
                }
                Thread.sleep(250);
            }
        }
    }
}
