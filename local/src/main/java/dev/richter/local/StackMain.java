package dev.richter.local;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the local stack alone and keeps it up until interrupted ({@code ./richter stack}): the
 * HTTP API, the Lambda Invoke API, DynamoDB, Step Functions and the event capture, for trying the
 * API by hand. Ctrl-C (SIGINT/SIGTERM) stops every process it started.
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
    private StackMain() {}

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
        stack.start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stack.close();
            stopped.countDown();
        }));
        System.out.println("API: " + LocalAwsStack.apiBaseUrl() + " (send Authorization: Bearer $(./richter token --team <team>));"
                + " OpenAPI: " + LocalAwsStack.apiBaseUrl() + "/openapi.json; events: " + root.resolve("build/local/events.jsonl")
                + "; Ctrl-C stops the stack");
        if (insecure) {
            String bar = "!".repeat(100);
            System.out.println(bar);
            System.out.println("!! INSECURE DEV AUTH: requests WITHOUT a token are taken at their word: x-richter-team: <team> makes");
            System.out.println("!! the caller that team (x-richter-user: the caller). Anyone who reaches " + LocalAwsStack.apiBaseUrl());
            System.out.println("!! is any team. For trying the API by hand on this machine only; never on a shared host.");
            System.out.println(bar);
        }
        stopped.await();
    }
}
