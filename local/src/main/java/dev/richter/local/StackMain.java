package dev.richter.local;

import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the local stack alone and keeps it up until interrupted ({@code ./richter stack}): the
 * HTTP API, the Lambda Invoke API, DynamoDB, Step Functions and the event capture, for trying the
 * API by hand. Ctrl-C (SIGINT/SIGTERM) stops every process it started.
 *
 * <p>Limits are AWS's unless {@code RICHTER_LOCAL_LIMITS} lowers them or sets template parameters,
 * e.g. {@code RICHTER_LOCAL_LIMITS=historyEventsPerExecution=400,param.StageName=dev ./richter stack}
 * (see {@link LocalLimits#parse(String)}); the stack prints the effective limits when it starts.
 */
public final class StackMain {
    private StackMain() {}

    public static void main(String[] args) throws Exception {
        Path root = LocalStack.rootFromEnv();
        LocalStack stack = new LocalStack(root, root.resolve("build/local"), LocalLimits.fromEnv(), System.out::println).start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stack.close();
            stopped.countDown();
        }));
        System.out.println("API: " + LocalStack.apiBaseUrl() + " (send x-richter-team: <team>); events: "
                + root.resolve("build/local/events.jsonl") + "; Ctrl-C stops the stack");
        stopped.await();
    }
}
