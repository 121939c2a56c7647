package dev.richter.common;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;
import org.crac.Context;
import org.crac.Core;
import org.crac.Resource;

/**
 * Lambda SnapStart runtime hooks: code that runs in each execution environment right after Lambda resumes it from
 * the snapshot of the function version's init (AWS Lambda, "Lambda SnapStart runtime hooks for Java", through the
 * {@code org.crac} API that Lambda's Java runtime implements). A function whose init leaves state that must not be
 * shared by every environment resumed from one snapshot registers what renews it: connections opened at init to the
 * systems Richter probes, for example (AWS Lambda, "Handling uniqueness with Lambda SnapStart" and "Networking
 * best practices"). Outside SnapStart (the local stack, tests, a JVM without CRaC) {@code org.crac} registers the
 * resource and never calls it.
 *
 * <p>Each hook is held here for the container's life, since the CRaC context may keep only a weak reference.
 */
public final class SnapStartHooks {
    private static final Logger LOG = LogManager.getLogger(SnapStartHooks.class);
    private static final List<Hook> REGISTERED = new CopyOnWriteArrayList<>();

    private SnapStartHooks() {}

    /**
     * One registered hook: {@link #afterRestore} runs its action once per restore.
     *
     * @param name   what it renews, for the log line and {@link #registered()}
     * @param action the renewal; an exception it throws fails the restore, as Lambda fails an environment whose
     *               {@code afterRestore} throws (the invocation then gets a {@code SnapStartException})
     */
    public record Hook(String name, Runnable action) implements Resource {
        @Override
        public void beforeCheckpoint(Context<? extends Resource> context) {
            // nothing to close before the snapshot: what the action renews is rebuilt after the restore
        }

        @Override
        public void afterRestore(Context<? extends Resource> context) {
            long startNs = System.nanoTime();
            action.run();
            LOG.info("SnapStart restore: renewed {} in {} ms", name, (System.nanoTime() - startNs) / 1_000_000);
        }
    }

    /**
     * Registers {@code action} to run after every restore from a snapshot, with the global CRaC context.
     *
     * @param name   what it renews (e.g. {@code "probe HTTP clients and gRPC channels"})
     * @param action the renewal, run on the restoring thread before the first invocation of the environment
     * @return the registered hook (tests call its {@code afterRestore} to act as a restore)
     */
    public static Hook afterRestore(String name, Runnable action) {
        Hook hook = new Hook(name, action);
        REGISTERED.add(hook);
        Core.getGlobalContext().register(hook);
        return hook;
    }

    /** The hooks registered in this JVM, in registration order. */
    public static List<Hook> registered() {
        return List.copyOf(REGISTERED);
    }
}
