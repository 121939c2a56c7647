package dev.richter.links.middleware;

/**
 * What a library does for a service, as its spans show it, which decides how an unguarded one is judged
 * ({@code guarded-middleware} in the checks).
 */
public enum MiddlewareRole {
    /** An HTTP client (CLIENT spans): its marked calls may be vouched for by an isolating in-scope callee. */
    HTTP_CLIENT("http-client"),
    /** An RPC client (gRPC, Dubbo; CLIENT spans with {@code rpc.system}): as an HTTP client. */
    RPC_CLIENT("rpc-client"),
    /**
     * A store: a database, cache or broker client, or a cloud SDK ({@code db.system}, {@code messaging.system}, PRODUCER
     * and CONSUMER spans, the AWS SDK): what it writes lands in the store itself, with no in-scope service after it
     * to prove isolation.
     */
    STORE("store"),
    /** A server (SERVER spans): listed, guarded when the extension gates it; its marked requests are not exits. */
    SERVER("server");

    private final String text;

    MiddlewareRole(String text) {
        this.text = text;
    }

    /** The role as the API and the report write it: {@code http-client}, {@code rpc-client}, {@code store}, {@code server}. */
    public String text() {
        return text;
    }

    /** True for the clients whose marked calls another in-scope service may prove isolated (HTTP and RPC). */
    public boolean callsAService() {
        return this == HTTP_CLIENT || this == RPC_CLIENT;
    }

    /** The role of {@code text} ({@link #text()}); {@link #STORE} for an unknown text (the strictest judgement). */
    public static MiddlewareRole ofText(String text) {
        for (MiddlewareRole r : values()) {
            if (r.text.equals(text)) {
                return r;
            }
        }
        return STORE;
    }
}
