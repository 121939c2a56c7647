package dev.richter.agent.it;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import reactor.core.publisher.Mono;

/**
 * A test application's thread that never carries a request's context: a {@code Mono} built on the request's thread is
 * handed to it through a queue (no executor the agent instruments) and subscribed there with {@code block()}, as a
 * reactive call subscribed off the request's context is.
 */
final class ContextFreeSubscriber {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** A {@code Mono} and where its answer goes. */
    private record Handoff(Mono<?> mono, CompletableFuture<Object> answer) {}

    private final BlockingQueue<Handoff> handoffs = new LinkedBlockingQueue<>();

    /** Starts the thread, a daemon named {@code no-context-subscriber}. */
    ContextFreeSubscriber() {
        Thread thread = new Thread(() -> {
            while (true) {
                try {
                    Handoff h = handoffs.take();
                    try {
                        h.answer().complete(h.mono().block(TIMEOUT));
                    } catch (RuntimeException e) {
                        h.answer().completeExceptionally(e);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "no-context-subscriber");
        thread.setDaemon(true);
        thread.start();
    }

    /**
     * What {@code mono} emits, subscribed on the thread (10 s at most).
     *
     * @throws java.util.concurrent.ExecutionException with what the subscription failed with as its cause
     */
    Object block(Mono<?> mono) throws Exception {
        CompletableFuture<Object> done = new CompletableFuture<>();
        handoffs.add(new Handoff(mono, done));
        return done.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    }
}
