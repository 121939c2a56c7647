package dev.richter.agent.bootstrap;

import java.util.Objects;
import java.util.Optional;

/**
 * What the isolation does with one datastore or broker call (a SQL statement, a JDBC URL, a connection's database, a
 * Redis command's key): send it as it is, send a shadow form of it instead, or refuse it. Only java.base types: this
 * package is on the boot class path (see {@link IsolationBridge}). A value: equal to another with the same components.
 *
 * @param rewritten    what to send instead (the SQL with shadow tables, the shadow URL, the shadow schema, the
 *                     shadow key); empty: send the call as it is
 * @param shadowTarget the shadow target(s) the call goes to, as configured (comma-separated when several), for
 *                     {@code richter.shadow.target}; {@code ""} when none
 * @param verdict      {@link ExitDecision#PASS}, an {@link ExitDecision.Refuse} (the call is never sent; the client
 *                     throws its own exception with the refusal's message) or an {@link ExitDecision.WouldRefuse}
 *                     (report mode: sent, with {@link #rewritten} applied, and recorded)
 */
public final class ShadowDecision {
    /** The decision for every unmarked call, and for a marked one with nothing to shadow or refuse. */
    public static final ShadowDecision UNTOUCHED = new ShadowDecision(Optional.empty(), "", ExitDecision.PASS);

    private final Optional<String> rewritten;
    private final String shadowTarget;
    private final ExitDecision verdict;

    /** @throws IllegalArgumentException when {@code verdict} is a mock */
    public ShadowDecision(Optional<String> rewritten, String shadowTarget, ExitDecision verdict) {
        if (verdict instanceof ExitDecision.Mock) {
            throw new IllegalArgumentException("a datastore call is shadowed or refused, never mocked");
        }
        this.rewritten = rewritten;
        this.shadowTarget = shadowTarget;
        this.verdict = verdict;
    }

    public Optional<String> rewritten() {
        return rewritten;
    }

    public String shadowTarget() {
        return shadowTarget;
    }

    public ExitDecision verdict() {
        return verdict;
    }

    /** Sends {@code value} instead, to the shadow {@code target}. */
    public static ShadowDecision shadow(String value, String target) {
        return new ShadowDecision(Optional.of(value), target, ExitDecision.PASS);
    }

    /** Refuses the call: it is never sent. */
    public static ShadowDecision refuse(String exit, String reason) {
        return new ShadowDecision(Optional.empty(), "", new ExitDecision.Refuse(exit, reason));
    }

    /** Whether the call must not be sent. */
    public boolean refused() {
        return verdict instanceof ExitDecision.Refuse;
    }

    /** The refusal's message (naming the target and the rule), {@code ""} when not refused. */
    public String refusal() {
        return verdict instanceof ExitDecision.Refuse ? ((ExitDecision.Refuse) verdict).message() : "";
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ShadowDecision)) {
            return false;
        }
        ShadowDecision d = (ShadowDecision) o;
        return Objects.equals(rewritten, d.rewritten) && Objects.equals(shadowTarget, d.shadowTarget)
                && Objects.equals(verdict, d.verdict);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rewritten, shadowTarget, verdict);
    }

    @Override
    public String toString() {
        return "ShadowDecision[rewritten=" + rewritten + ", shadowTarget=" + shadowTarget + ", verdict=" + verdict
                + "]";
    }
}
