package dev.richter.agent.otel;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.isolation.IsolationConfigSource;
import dev.richter.agent.isolation.IsolationSettings;
import dev.richter.agent.isolation.RichterIsolationGuard;
import java.util.Optional;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Starts the isolation once per JVM, while the agent installs its instrumentation (before any instrumented class can
 * run): the bridge onto the boot class path, the configuration source from {@link IsolationSettings#fromSystem()}
 * (first load, then the refresh thread), and the {@link RichterIsolationGuard} into {@link IsolationBridge}. Settings
 * that cannot be read are logged and leave a guard with no source: every marked call is then refused.
 */
final class IsolationStartup {
    private static final Logger LOG = Logger.getLogger(IsolationStartup.class.getName());
    private static boolean started;

    private IsolationStartup() {}

    static synchronized void ensureStarted() {
        if (started) {
            return;
        }
        started = true;
        IsolationSettings settings;
        try {
            settings = IsolationSettings.fromSystem();
        } catch (IllegalArgumentException e) {
            LOG.log(Level.SEVERE, "Richter isolation: " + e.getMessage() + "; every marked call is refused");
            settings = new IsolationSettings(Optional.empty(), "", Optional.empty(),
                    IsolationSettings.DEFAULT_REFRESH_S);
        }
        IsolationConfigSource source = IsolationConfigSource.start(settings);
        IsolationBridge.install(new RichterIsolationGuard(source, RichterIsolationGuard::markedInCurrentContext));
    }
}
