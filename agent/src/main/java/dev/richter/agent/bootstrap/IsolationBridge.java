package dev.richter.agent.bootstrap;

import java.util.Optional;

/**
 * Where instrumented code finds the isolation. This package is appended to the boot class path when the extension
 * starts ({@code dev.richter.agent.otel.BootClassPath}), before any class is instrumented, so one copy of it serves
 * the JDK's clients (platform class loader), the application's clients (its own class loaders) and the extension
 * itself, and all of them share the one configuration the extension loads.
 */
public final class IsolationBridge {
    /** Used when no guard is installed (the extension failed to start, which it logs): everything passes. */
    private static final IsolationGuard NOT_STARTED = new IsolationGuard() {
        @Override
        public ExitDecision decideHttp(String method, String host, int port, String path) {
            return ExitDecision.PASS;
        }

        @Override
        public void record(ExitDecision decision) {}

        @Override
        public Optional<String> inboundRefusal(String baggageHeader) {
            return Optional.empty();
        }

        @Override
        public MarkerScope markInbound(String baggageHeader) {
            return NOTHING;
        }
    };

    private static final MarkerScope NOTHING = new MarkerScope() {
        @Override
        public void close() {}
    };

    private static volatile IsolationGuard guard = NOT_STARTED;

    private IsolationBridge() {}

    /**
     * Installs the guard every instrumented call consults from now on; the extension calls it once, at start.
     *
     * @param installed the guard; {@code null} puts back the pass-everything one (for tests)
     */
    public static void install(IsolationGuard installed) {
        guard = installed == null ? NOT_STARTED : installed;
    }

    /** The installed guard (a pass-everything one before {@link #install}). */
    public static IsolationGuard guard() {
        return guard;
    }
}
