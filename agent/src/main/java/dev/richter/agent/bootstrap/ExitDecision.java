package dev.richter.agent.bootstrap;

import java.io.InterruptedIOException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * What the isolation does with one outgoing call: answer it with a mock, let it through, refuse it, or (report mode)
 * let it through and record that it would have been refused. Only java.base types: this package is on the boot class
 * path, shared by every class loader (see {@link IsolationBridge}). Four kinds, no other: {@link Pass}, {@link Mock},
 * {@link Refuse}, {@link WouldRefuse} (the last two a {@link Refusal}); each a value, equal to another of its kind with
 * the same components.
 */
public interface ExitDecision {

    /** The call goes to its target untouched: an unmarked call, or a marked call inside the test's scope. */
    final class Pass implements ExitDecision {
        public Pass() {}

        @Override
        public boolean equals(Object o) {
            return o instanceof Pass;
        }

        @Override
        public int hashCode() {
            return 0;
        }

        @Override
        public String toString() {
            return "Pass[]";
        }
    }

    /** The decision for every unmarked call (no lookup is made for them). */
    Pass PASS = new Pass();

    /**
     * Answer with the configured mock, without any network call.
     *
     * @param exit      the exit id as configured in the mock document, e.g. {@code api.stripe.com/v1/charges}, or a gRPC
     *                  mock's ({@code [authority/]<package>.<Service>/<Method>})
     * @param status    HTTP status, 100–599; for a gRPC call ({@code IsolationGuard.decideGrpc}) the gRPC status code's
     *                  value, 0–16
     * @param headers   response headers (none for a gRPC call)
     * @param body      response body, UTF-8 text ({@code ""} for none); for a gRPC call the response message's bytes in
     *                  base64 (status 0) or the status's description
     * @param latencyMs simulated latency to wait before answering, milliseconds, ≥ 0
     */
    final class Mock implements ExitDecision {
        private final String exit;
        private final int status;
        private final Map<String, String> headers;
        private final String body;
        private final long latencyMs;

        /** The mock of the components above; {@code headers} is copied (no null key or value). */
        public Mock(String exit, int status, Map<String, String> headers, String body, long latencyMs) {
            Map<String, String> copy = new LinkedHashMap<>(headers);
            copy.forEach((k, v) -> {
                Objects.requireNonNull(k);
                Objects.requireNonNull(v);
            });
            this.exit = exit;
            this.status = status;
            this.headers = Collections.unmodifiableMap(copy);
            this.body = body;
            this.latencyMs = latencyMs;
        }

        public String exit() {
            return exit;
        }

        public int status() {
            return status;
        }

        public Map<String, String> headers() {
            return headers;
        }

        public String body() {
            return body;
        }

        public long latencyMs() {
            return latencyMs;
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

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Mock)) {
                return false;
            }
            Mock m = (Mock) o;
            return Objects.equals(exit, m.exit) && status == m.status && headers.equals(m.headers)
                    && Objects.equals(body, m.body) && latencyMs == m.latencyMs;
        }

        @Override
        public int hashCode() {
            return Objects.hash(exit, status, headers, body, latencyMs);
        }

        @Override
        public String toString() {
            return "Mock[exit=" + exit + ", status=" + status + ", headers=" + headers + ", body=" + body
                    + ", latencyMs=" + latencyMs + "]";
        }
    }

    /**
     * What a refusal says, {@link Refuse} or {@link WouldRefuse}: equal to another of the same kind with the same exit
     * and reason.
     */
    abstract class Refusal implements ExitDecision {
        private final String exit;
        private final String reason;

        Refusal(String exit, String reason) {
            this.exit = exit;
            this.reason = reason;
        }

        /** The exit the call would have taken, or took, {@code host:port METHOD /path}. */
        public String exit() {
            return exit;
        }

        /** Why, in a sentence that names the rule. */
        public String reason() {
            return reason;
        }

        @Override
        public boolean equals(Object o) {
            if (o == null || o.getClass() != getClass()) {
                return false;
            }
            Refusal r = (Refusal) o;
            return Objects.equals(exit, r.exit) && Objects.equals(reason, r.reason);
        }

        @Override
        public int hashCode() {
            return Objects.hash(getClass().getSimpleName(), exit, reason);
        }

        @Override
        public String toString() {
            return getClass().getSimpleName() + "[exit=" + exit + ", reason=" + reason + "]";
        }
    }

    /**
     * Refuse the call: it is marked and would reach production (enforce mode), or the configuration is not loaded.
     *
     * @param exit   the exit the call would have taken, {@code host:port METHOD /path}
     * @param reason why, in a sentence that names the rule
     */
    final class Refuse extends Refusal {
        public Refuse(String exit, String reason) {
            super(exit, reason);
        }

        /** The message of the {@code IOException} a refused call fails with: names the exit and the reason. */
        public String message() {
            return "Richter isolation refused a marked call to exit '" + exit() + "': " + reason();
        }
    }

    /**
     * Report mode: the call is let through, and recorded as one that enforce mode would have refused.
     *
     * @param exit   the exit taken, {@code host:port METHOD /path}
     * @param reason what enforce mode would have said
     */
    final class WouldRefuse extends Refusal {
        public WouldRefuse(String exit, String reason) {
            super(exit, reason);
        }

        /** The log line and {@code richter.would_refuse} of the call: names the exit and the reason. */
        public String message() {
            return "Richter isolation would refuse a marked call to exit '" + exit() + "' (report mode): " + reason();
        }
    }
}
