package dev.richter.agent.bootstrap;

/** The time an inbound request's marker is current ({@link IsolationGuard#markInbound}); close it once, after. */
public interface MarkerScope extends AutoCloseable {
    /** Restores the context as it was before; never throws. */
    @Override
    void close();
}
