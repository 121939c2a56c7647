package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.sdk.MockResponse;
import java.util.Optional;

/**
 * The isolation's rule for one outgoing HTTP call, in this order (DESIGN.md "Isolation without code changes"):
 * <ol>
 *   <li>an unmarked call passes, untouched and unlooked-at;</li>
 *   <li>a marked call before any configuration has loaded is refused: {@value #NOT_LOADED} (fail closed);</li>
 *   <li>a marked call that a configured exit answers ({@link HttpExit#answers}, the most specific exit first) gets
 *       its mock, in scope or not;</li>
 *   <li>a marked call to a host in the test's scope passes;</li>
 *   <li>any other marked call would reach production: refused in {@link IsolationMode#ENFORCE}, passed and recorded
 *       ({@link ExitDecision.WouldRefuse}) in {@link IsolationMode#REPORT}.</li>
 * </ol>
 */
public final class HttpExitPolicy {
    /** The reason a marked call is refused while no configuration has loaded. */
    public static final String NOT_LOADED = "isolation configuration not loaded";

    private HttpExitPolicy() {}

    /**
     * @param marked whether the call carries the load-test marker
     * @param method request method, e.g. {@code GET}
     * @param host   target host, e.g. {@code api.stripe.com}
     * @param port   target port, the scheme's default when the URI names none
     * @param path   raw path without query ({@code /} when empty)
     * @param config the loaded configuration; empty before the first good load
     * @return the decision; the exit of a refusal is {@code host:port METHOD /path}
     */
    public static ExitDecision decide(boolean marked, String method, String host, int port, String path,
                                      Optional<IsolationConfig> config) {
        if (!marked) {
            return ExitDecision.PASS;
        }
        String exit = host + ":" + port + " " + method + " " + path;
        if (!config.isPresent()) {
            return new ExitDecision.Refuse(exit, NOT_LOADED);
        }
        IsolationConfig c = config.get();
        for (HttpExit e : c.exits()) {
            if (e.answers(method, host, port, path)) {
                MockResponse m = c.mocks().get(e.exit());
                return new ExitDecision.Mock(e.exit(), m.status(), m.headers(), m.body(), m.latencyMs());
            }
        }
        for (HostPort allowed : c.scope()) {
            if (allowed.covers(host, port)) {
                return ExitDecision.PASS;
            }
        }
        String reason = host + ":" + port + " is outside the test's scope and no mock answers the exit";
        return c.mode() == IsolationMode.ENFORCE
                ? new ExitDecision.Refuse(exit, reason)
                : new ExitDecision.WouldRefuse(exit, reason);
    }
}
