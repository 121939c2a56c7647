package dev.richter.agent.isolation;

import dev.richter.sdk.Marked;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Set;
import java.util.TreeSet;

/**
 * The extension's proof that its isolation is on in this JVM, stamped on every span that starts in marked work
 * ({@link ProofSpanProcessor}), so that the {@code isolation-enforced} check proves isolation from evidence instead
 * of reading it from the absence of refusals:
 * <ul>
 *   <li>{@value #ACTIVE}: {@code true} when at least one Richter module started and none failed to; else {@code
 *       false}, with {@value #ERROR} saying why (e.g. the bridge could not be put on the boot class path);</li>
 *   <li>{@value #MODE}: {@code enforce} or {@code report}, of the isolation document in force ({@code enforce}
 *       before any loads: every marked call is refused until one does);</li>
 *   <li>{@value #DOCUMENT}: {@code sha256:<16 hex>} of the isolation document's bytes, {@code none} before the first
 *       load;</li>
 *   <li>{@value #MODULES}: the modules that started, sorted, comma-separated (e.g. {@code
 *       richter-jdbc,richter-jdk-http-client}).</li>
 * </ul>
 * A JVM without the extension, or whose Java cannot load its classes, stamps nothing, which the check FAILs too.
 * State is per JVM, set while the agent installs its modules and on each document load; thread-safe.
 */
public final class IsolationProof {
    /** Span attribute: {@code true} when the isolation runs in this JVM, {@code false} when it failed to start. */
    public static final String ACTIVE = "richter.isolation.active";
    /** Span attribute: the document's mode, {@code enforce} or {@code report}. */
    public static final String MODE = "richter.isolation.mode";
    /** Span attribute: the document in force, {@code sha256:<first 16 hex digits>}, or {@code none}. */
    public static final String DOCUMENT = "richter.isolation.document";
    /** Span attribute: the modules that started, comma-separated. */
    public static final String MODULES = "richter.isolation.modules";
    /** Span attribute: why the isolation did not start (with {@value #ACTIVE}{@code =false}). */
    public static final String ERROR = "richter.isolation.error";

    private static final Set<String> STARTED = new TreeSet<String>();
    private static volatile String modules = "";
    private static volatile String error = "";
    private static volatile String document = "none";
    private static volatile String mode = "enforce";

    private IsolationProof() {}

    /** Records that module {@code name} started and instruments its classes. */
    public static void moduleStarted(String name) {
        synchronized (STARTED) {
            STARTED.add(name);
            modules = String.join(",", STARTED);
        }
    }

    /** Records that module {@code name} could not start, and why; the first reason is kept. */
    public static void moduleFailed(String name, Throwable cause) {
        synchronized (STARTED) {
            if (error.isEmpty()) {
                error = name + " not started: " + cause;
            }
        }
    }

    /**
     * Records the isolation document now in force.
     *
     * @param json      the document's bytes as loaded
     * @param modeName  its mode, {@code enforce} or {@code report}
     */
    public static void documentLoaded(byte[] json, String modeName) {
        document = digest(json);
        mode = modeName;
    }

    /** {@code sha256:} and the first 16 hex digits of the SHA-256 of {@code bytes}. */
    static String digest(byte[] bytes) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(bytes);
            StringBuilder b = new StringBuilder("sha256:");
            for (int i = 0; i < 8; i++) {
                b.append(String.format("%02x", d[i] & 0xff));
            }
            return b.toString();
        } catch (NoSuchAlgorithmException e) {
            // every Java platform has SHA-256 (MessageDigest's required algorithms)
            return "sha256:unavailable";
        }
    }

    /**
     * True when {@code parent}'s baggage holds Richter's default marker with a proof the installed guard accepts
     * ({@link RichterIsolationGuard#proofAccepted}): a forged marker's span gets no proof.
     */
    public static boolean marked(Context parent) {
        Baggage baggage = Baggage.fromContext(parent);
        if (!Marked.DEFAULT_VALUE.equals(baggage.getEntryValue(Marked.DEFAULT_KEY))) {
            return false;
        }
        IsolationGuard guard = IsolationBridge.guard();
        return !(guard instanceof RichterIsolationGuard) || ((RichterIsolationGuard) guard).proofAccepted(baggage);
    }

    /** Puts the proof on {@code span} (see the class comment). */
    public static void stamp(ReadWriteSpan span) {
        String failed = error;
        String started = modules;
        boolean active = failed.isEmpty() && !started.isEmpty();
        span.setAttribute(ACTIVE, active ? "true" : "false");
        span.setAttribute(MODE, mode);
        span.setAttribute(DOCUMENT, document);
        span.setAttribute(MODULES, started);
        if (!active) {
            span.setAttribute(ERROR, failed.isEmpty() ? "no Richter module started" : failed);
        }
    }
}
