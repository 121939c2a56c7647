package dev.richter.links.middleware;

/**
 * A client, store or server a service was seen using in its spans ({@link MiddlewareInventory}), as {@code GET
 * /services/{name}} answers it in {@code middleware} and the report lists it per service.
 *
 * @param service the service whose spans show it ({@code service.name})
 * @param library the library ({@link GuardedMiddleware.Library#library()}), e.g. {@code reactor-netty HttpClient}
 * @param versions the library versions its instrumentation covers, e.g. {@code 1.0+}; {@code ""} when unknown
 * @param role {@link MiddlewareRole#text()}: {@code http-client}, {@code rpc-client}, {@code store} or {@code server}
 * @param scopeName the instrumentation scope that recorded it, {@code ""} when the traces named none
 * @param scopeVersion that scope's version (for the OpenTelemetry Java agent, the agent's), {@code ""} when not recorded
 * @param system the first {@code db.system} / {@code db.system.name} / {@code messaging.system} / {@code rpc.system}
 *     seen, e.g. {@code h2}, {@code redis}, {@code kafka}; {@code ""} for none
 * @param guarded true when Richter's agent extension guards it (the table {@link GuardedMiddleware})
 * @param calls spans seen
 * @param markedCalls spans seen in marked traces (traces with a span carrying the load-test marker)
 * @param markedCallsIsolated marked calls of an HTTP or RPC client whose callee's SERVER span (a child of the call's
 *     span) belongs to a service in scope and carries {@code richter.isolation.active=true}: the callee proved its
 *     isolation on; 0 for other roles
 * @param lastSeenMs the latest start, epoch ms, of a span seen
 */
public record MiddlewareUse(String service, String library, String versions, String role, String scopeName,
                            String scopeVersion, String system, boolean guarded, long calls, long markedCalls,
                            long markedCallsIsolated, long lastSeenMs) {
    /** How an entry is judged on marked traffic (the {@code guarded-middleware} check's rule). */
    public enum Standing {
        /** The extension guards it. */
        GUARDED,
        /** Not guarded, and never seen in a marked trace. */
        NOT_ON_MARKED_TRAFFIC,
        /** Not guarded, an HTTP or RPC client, and every marked call went to an in-scope service that proved isolation. */
        CALLEE_ISOLATED,
        /** Not guarded, a server on marked traffic: its requests are not exits, it has no 503 gate before the document. */
        UNGATED_SERVER,
        /** Not guarded and on marked traffic otherwise: the gate FAILs. */
        UNGUARDED_ON_MARKED_TRAFFIC
    }

    /** Identity within a team: service, library and scope. */
    public String key() {
        return service.length() + ":" + service + "#" + library + "#" + scopeName;
    }

    /** True when seen in a marked trace. */
    public boolean seenMarked() {
        return markedCalls > 0;
    }

    /** The rule: see {@link Standing}. */
    public Standing verdict() {
        if (guarded) {
            return Standing.GUARDED;
        }
        if (!seenMarked()) {
            return Standing.NOT_ON_MARKED_TRAFFIC;
        }
        MiddlewareRole r = MiddlewareRole.ofText(role);
        if (r == MiddlewareRole.SERVER) {
            return Standing.UNGATED_SERVER;
        }
        if (r.callsAService() && markedCallsIsolated == markedCalls) {
            return Standing.CALLEE_ISOLATED;
        }
        return Standing.UNGUARDED_ON_MARKED_TRAFFIC;
    }

    /** {@code library versions (scope version)}, e.g. {@code Lettuce 5.1+ (io.opentelemetry.lettuce-5.1 2.22.0-alpha)}. */
    public String describe() {
        String scope = scopeName.isEmpty() ? "" : " (" + scopeName + (scopeVersion.isEmpty() ? "" : " " + scopeVersion) + ")";
        return library + (versions.isEmpty() ? "" : " " + versions) + scope;
    }

    /**
     * This entry merged with a later sighting: counts summed, the latest time kept, the first system kept (a later one
     * when this has none).
     */
    public MiddlewareUse merge(MiddlewareUse other) {
        return new MiddlewareUse(service, library, versions, role, scopeName,
                other.scopeVersion.isEmpty() ? scopeVersion : other.scopeVersion, system.isEmpty() ? other.system : system,
                guarded, calls + other.calls, markedCalls + other.markedCalls,
                markedCallsIsolated + other.markedCallsIsolated, Math.max(lastSeenMs, other.lastSeenMs));
    }
}
