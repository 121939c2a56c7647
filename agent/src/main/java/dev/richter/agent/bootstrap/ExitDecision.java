package dev.richter.agent.bootstrap;

import java.io.InterruptedIOException;
import java.util.Map;

/**
 * What the isolation does with one outgoing call: answer it with a mock, let it through, refuse it, or (report mode)
 * let it through and record that it would have been refused. Only java.base types: this package is on the boot class
 * path, shared by every class loader (see {@link IsolationBridge}).
 */
public sealed interface ExitDecision {

    /** The call goes to its target untouched: an unmarked call, or a marked call inside the test's scope. */
    record Pass() implements ExitDecision {}

    /** The decision for every unmarked call (no lookup is made for them). */
    Pass PASS = new Pass();

    /**
     * Answer with the configured mock, without any network call.
     *
     * @param exit      the exit id as configured in the mock document, e.g. {@code api.stripe.com/v1/charges}
     * @param status    HTTP status, 100–599
     * @param headers   response headers
     * @param body      response body, UTF-8 text ({@code ""} for none)
     * @param latencyMs simulated latency to wait before answering, milliseconds, ≥ 0
     */
    record Mock(String exit, int status, Map<String, String> headers, String body, long latencyMs) implements ExitDecision {
        public Mock {
            headers = Map.copyOf(headers);
        }

        /**
         * Waits {@code latencyMs} on the calling thread, as the real exit would have taken, before a blocking client
         * answers with the mock.
         *
         * @throws InterruptedIOException when the thread is interrupted meanwhile (its interrupt flag set again), as a
         *     blocking client's read would be
         */
        public void awaitLatency() throws InterruptedIOException {
            if (latencyMs <= 0) {
                return;
            }
            try {
                Thread.sleep(latencyMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while waiting the mock's latency of " + latencyMs + " ms");
            }
        }
    }

    /**
     * Refuse the call: it is marked and would reach production (enforce mode), or the configuration is not loaded.
     *
     * @param exit   the exit the call would have taken, {@code host:port METHOD /path}
     * @param reason why, in a sentence that names the rule
     */
    record Refuse(String exit, String reason) implements ExitDecision {
        /** The message of the {@code IOException} a refused call fails with: names the exit and the reason. */
        public String message() {
            return "Richter isolation refused a marked call to exit '" + exit + "': " + reason;
        }
    }

    /**
     * Report mode: the call is let through, and recorded as one that enforce mode would have refused.
     *
     * @param exit   the exit taken, {@code host:port METHOD /path}
     * @param reason what enforce mode would have said
     */
    record WouldRefuse(String exit, String reason) implements ExitDecision {
        /** The log line and {@code richter.would_refuse} of the call: names the exit and the reason. */
        public String message() {
            return "Richter isolation would refuse a marked call to exit '" + exit + "' (report mode): " + reason;
        }
    }
}
