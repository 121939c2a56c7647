package dev.richter.agent.reactornettyclient;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import java.io.IOException;
import java.util.Locale;
import reactor.core.CoreSubscriber;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Operators;
import reactor.netty.Connection;
import reactor.netty.http.client.HttpClientConfig;
import reactor.netty.http.client.RichterClientExchange;

/**
 * The isolation at reactor-netty's {@code HttpClient} (1.x; tested with reactor-netty-http 1.2.11, Spring Boot 3.5's),
 * and so at Spring WebFlux's {@code WebClient} over {@code ReactorClientHttpConnector} (tested with spring-webflux
 * 6.2.12). A request is sent when the {@code Mono} its {@code response*()} call built is subscribed: reactor-netty then
 * subscribes {@code HttpClientConnect.MonoHttpConnect}, which reads the final URI (base URL and remote address applied)
 * and acquires a connection; the I/O then runs on Netty's event loops. Each request is decided there, before a
 * connection is acquired ({@link #answered}), as marked when the context current at subscription is marked (the
 * request's: {@code block()} on its thread, a WebFlux chain the agent carries it through), or when the {@code Mono}
 * was built in a marked context ({@link #atAssembly}: a tag in the Reactor context of its subscription, so a
 * {@code Mono} built in a marked request and subscribed on a thread that does not carry its context is still decided
 * as marked). Marked:
 * <ul>
 *   <li>a mocked exit is answered by the mock through the client's own response path ({@link
 *       RichterClientExchange#answer}): {@code responseSingle}, {@code responseContent}, WebClient's {@code retrieve()}
 *       read the mock's status, headers and body; nothing is connected;</li>
 *   <li>an in-scope host passes untouched;</li>
 *   <li>anything else (and a request that cannot be read) fails the subscription with an {@code IOException} naming
 *       the exit (reactor-netty has no exception type of its own for it; WebClient wraps it in its {@code
 *       WebClientRequestException}), before any connection is acquired.</li>
 * </ul>
 * The decision is stamped on the span current where the request is subscribed (the agent's {@code spring-webflux}
 * client span for WebClient, else the caller's): the agent's {@code reactor-netty-1.0} client span starts later, when
 * the request is sent (a mock's ends with the mock's status; a refusal's is a connection-error span carrying the
 * refusal's exception); a request subscribed on a thread with no context has no span to be stamped on. Redirects the
 * client follows ({@code followRedirect}, off by default) and its retry of a reset connection are not decided again.
 * Injected by the agent as a helper next to reactor-netty; reaches the guard through {@link
 * IsolationBridge}. No lambdas.
 */
public final class ReactorNettyClientExits {
    /** The key, in a subscription's Reactor context, of the tag of a request built in a marked context. */
    public static final String MARKED_AT_ASSEMBLY = "richter.marked-at-assembly";

    private ReactorNettyClientExits() {}

    /**
     * On the application's call that builds a request's {@code Mono} ({@code HttpClientConnect.connect()}, which every
     * {@code response*()} of {@code HttpClient} calls): in a marked context, the {@code Mono} whose subscription
     * carries the tag {@link #MARKED_AT_ASSEMBLY}; unmarked, {@code connection} itself.
     */
    public static Mono<? extends Connection> atAssembly(Mono<? extends Connection> connection) {
        if (connection == null || !IsolationBridge.guard().marked()) {
            return connection;
        }
        return connection.contextWrite(reactor.util.context.Context.of(MARKED_AT_ASSEMBLY, Boolean.TRUE));
    }

    /**
     * At {@code MonoHttpConnect.subscribe(actual)}, before reactor-netty reads the request and acquires a connection.
     *
     * @param config the request's configuration (the {@code MonoHttpConnect}'s)
     * @param actual the subscriber of the connection
     * @return {@code true}: {@code actual} was answered (the mock's exchange) or failed (the refusal), do not subscribe
     *     for real; {@code false}: go on (unmarked, in scope, or a refusal report mode lets through)
     */
    public static boolean answered(HttpClientConfig config, CoreSubscriber<? super Connection> actual) {
        boolean markedWhereBuilt = actual.currentContext().hasKey(MARKED_AT_ASSEMBLY);
        IsolationGuard guard = IsolationBridge.guard();
        if (!markedWhereBuilt && !guard.marked()) {
            return false;
        }
        RichterClientExchange request;
        ExitDecision decision;
        try {
            request = RichterClientExchange.of(config);
            decision = guard.decideHttp(request.method.toUpperCase(Locale.ROOT), request.host, request.port,
                    request.path, markedWhereBuilt);
        } catch (RuntimeException | LinkageError e) {
            request = null;
            decision = new ExitDecision.Refuse("reactor-netty " + config.uri(), "a marked request that cannot be"
                    + " read is not sent (" + e + ")");
        }
        guard.record(decision);
        if (decision instanceof ExitDecision.Mock && request != null) {
            ExitDecision.Mock mock = (ExitDecision.Mock) decision;
            try {
                request.answer(actual, mock.status(), mock.headers(), mock.body(), mock.latencyMs());
            } catch (RuntimeException | LinkageError e) {
                Operators.error(actual, new IOException("Richter isolation could not answer a marked request to "
                        + mock.exit() + " with its mock, and did not send it (" + e + ")"));
            }
            return true;
        }
        if (decision instanceof ExitDecision.Refuse) {
            Operators.error(actual, new IOException(((ExitDecision.Refuse) decision).message()));
            return true;
        }
        return false; // a Pass or a WouldRefuse
    }
}
