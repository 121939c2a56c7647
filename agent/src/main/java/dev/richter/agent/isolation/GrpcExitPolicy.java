package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import java.util.Collections;
import java.util.Optional;

/**
 * The isolation's rule for one outgoing gRPC call, {@link HttpExitPolicy}'s order with the document's {@code
 * grpcMocks} ({@link GrpcMock}) as its exits:
 * <ol>
 *   <li>an unmarked call passes, untouched;</li>
 *   <li>a marked call before any configuration has loaded is refused: {@value HttpExitPolicy#NOT_LOADED};</li>
 *   <li>a marked call of a mocked method gets its mock (one naming the call's authority before one naming none, then
 *       document order), in scope or not;</li>
 *   <li>a marked call to an authority in the test's scope passes;</li>
 *   <li>any other marked call is refused ({@link IsolationMode#ENFORCE}), or passed and recorded ({@link
 *       IsolationMode#REPORT}).</li>
 * </ol>
 */
public final class GrpcExitPolicy {
    private GrpcExitPolicy() {}

    /**
     * @param marked     whether the call carries the load-test marker
     * @param host       the channel's authority's host, e.g. {@code payments.internal}
     * @param port       its port (443 when the authority names none, gRPC's default)
     * @param fullMethod the method, {@code <package>.<Service>/<Method>}
     * @param config     the loaded configuration; empty before the first good load
     * @return the decision. A mock is an {@link ExitDecision.Mock} whose {@code status} is the gRPC status code's
     *     value, whose {@code body} is the response message in base64 (status 0) or the status's description (any
     *     other), with no headers; a refusal's exit is {@code host:port/<fullMethod>}
     */
    public static ExitDecision decide(boolean marked, String host, int port, String fullMethod,
                                      Optional<IsolationConfig> config) {
        if (!marked) {
            return ExitDecision.PASS;
        }
        String exit = host + ":" + port + "/" + fullMethod;
        if (!config.isPresent()) {
            return new ExitDecision.Refuse(exit, HttpExitPolicy.NOT_LOADED);
        }
        IsolationConfig c = config.get();
        GrpcMock answer = null;
        for (GrpcMock m : c.grpcMocks()) {
            if (m.answers(fullMethod, host, port) && (answer == null || answer.authority() == null && m.authority() != null)) {
                answer = m;
            }
        }
        if (answer != null) {
            return new ExitDecision.Mock(answer.exit(), answer.code(), Collections.<String, String>emptyMap(),
                    answer.code() == 0 ? answer.response() : answer.description(), answer.latencyMs());
        }
        for (HostPort allowed : c.scope()) {
            if (allowed.covers(host, port)) {
                return ExitDecision.PASS;
            }
        }
        String reason = host + ":" + port + " is outside the test's scope and no gRPC mock answers " + fullMethod;
        return c.mode() == IsolationMode.ENFORCE
                ? new ExitDecision.Refuse(exit, reason)
                : new ExitDecision.WouldRefuse(exit, reason);
    }
}
