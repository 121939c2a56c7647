package dev.richter.agent.bootstrap;

import java.util.Optional;

/**
 * The isolation as the instrumented clients and servers see it, whatever class loader they are in. Implemented by the
 * extension ({@code dev.richter.agent.isolation.RichterIsolationGuard}) and installed into {@link IsolationBridge} at
 * agent start. Only java.base types cross it. Implementations never throw.
 *
 * <p>{@link #decideHttp} is the one rule for every HTTP client (the JDK's today; Apache HttpClient 5 and OkHttp call
 * it the same way); a datastore or broker (JDBC, Redis, Kafka) adds its own {@code decide...} method here, with its
 * own {@link ExitDecision} kinds where a mock does not fit.
 */
public interface IsolationGuard {

    /**
     * Decides an outgoing HTTP call made in the current OpenTelemetry context; the marker is read from that context's
     * baggage.
     *
     * @param method request method, e.g. {@code POST}
     * @param host   target host as in the URI, e.g. {@code api.stripe.com}
     * @param port   target port; the scheme's default (80, 443) when the URI names none
     * @param path   raw path without query, {@code /} when empty
     * @return {@link ExitDecision#PASS} for every unmarked call
     */
    ExitDecision decideHttp(String method, String host, int port, String path);

    /**
     * Stamps a decision on the span of the call being made ({@code Span.current()}: the agent's client span when it
     * made one) and logs the refusals: {@code richter.mock=true} and {@code richter.mock.exit=<exit id>}, {@code
     * richter.refused=<Refuse.message()>}, or {@code richter.would_refuse=<WouldRefuse.message()>}; {@link
     * ExitDecision.Pass} stamps nothing.
     */
    void record(ExitDecision decision);

    /**
     * Whether an inbound request must be answered {@code 503} before it reaches the service's handler: a marked
     * request while the isolation configuration is not loaded (fail closed).
     *
     * @param baggageHeader the request's {@code baggage} header values joined with {@code ,}, {@code ""} when none
     * @return the plain-text reason to answer with; empty: let it through (always, for unmarked requests)
     */
    Optional<String> inboundRefusal(String baggageHeader);

    /**
     * Makes an inbound request's marker current while its handler runs, when the agent did not already (its server
     * instrumentation is off, or its propagators leave out {@code baggage}), so the calls the handler makes are still
     * decided as marked.
     *
     * @param baggageHeader the request's {@code baggage} header values joined with {@code ,}, {@code ""} when none
     * @return the scope to close when the handler has returned; one that does nothing for an unmarked request or a
     *     context that already holds the marker
     */
    MarkerScope markInbound(String baggageHeader);
}
