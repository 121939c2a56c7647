package dev.richter.agent.otel;

import dev.richter.agent.isolation.IsolationProof;
import io.opentelemetry.javaagent.extension.instrumentation.InstrumentationModule;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import java.util.Collections;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Base of every Richter instrumentation module (one per client or server: the JDK's {@code HttpClient}, Apache
 * HttpClient 5 (classic, async), reactor-netty's {@code HttpClient}, OkHttp, JDBC, Jedis, Lettuce, the Kafka producer, Caffeine; the JDK's {@code HttpServer}, jakarta Servlet containers,
 * reactor-netty's {@code HttpServer}). Its constructor starts the isolation
 * ({@link IsolationStartup}): the agent constructs its modules before it instruments any class, so the bridge and the
 * guard are in place before the first instrumented call. A module's advice calls a helper of its own (injected next
 * to the client it instruments, listed in {@link #getAdditionalHelperClassNames()}) which asks {@code
 * IsolationBridge.guard()} for the decision and records it.
 */
public abstract class RichterInstrumentationModule extends InstrumentationModule {
    private static final Logger LOG = Logger.getLogger(RichterInstrumentationModule.class.getName());

    private final boolean started;

    /**
     * @param name the module's instrumentation name, {@code richter-<client>}; {@code
     *             -Dotel.instrumentation.<name>.enabled=false} turns it off
     */
    protected RichterInstrumentationModule(String name) {
        super(name, "richter-isolation");
        boolean ok;
        try {
            BootClassPath.appendBridge();
            IsolationStartup.ensureStarted();
            ok = true;
        } catch (RuntimeException | LinkageError e) {
            LOG.log(Level.SEVERE, "Richter isolation: not started, " + name + " instruments nothing; marked spans say"
                    + " so (richter.isolation.active=false) and the run's isolation-enforced check fails", e);
            IsolationProof.moduleFailed(name, e);
            ok = false;
        }
        started = ok;
    }

    /**
     * On even when the agent runs with {@code otel.instrumentation.common.default-enabled=false}: a service that
     * attached the extension wants its marked traffic isolated; {@code
     * -Dotel.instrumentation.richter-isolation.enabled=false} (or the module's own name) still turns it off.
     */
    @Override
    public boolean defaultEnabled(ConfigProperties config) {
        return true;
    }

    /**
     * Inlined advice always, also when the agent runs with {@code otel.javaagent.experimental.indy=true}: the advices
     * replace the instrumented method's return value or exception ({@code readOnly = false}) and keep a local between
     * enter and exit, which is the inlining style.
     */
    @Override
    public boolean isIndyModule() {
        return false;
    }

    /**
     * {@link #instrumentations()} once the isolation has started, the module then named in the proof ({@code
     * IsolationProof}); none when it failed to (logged, and in the proof).
     */
    @Override
    public final List<TypeInstrumentation> typeInstrumentations() {
        if (!started) {
            return Collections.emptyList();
        }
        List<TypeInstrumentation> list = instrumentations();
        if (!list.isEmpty()) {
            IsolationProof.moduleStarted(instrumentationName());
        }
        return list;
    }

    /** The classes this module instruments. */
    protected abstract List<TypeInstrumentation> instrumentations();

    /**
     * Installed after the agent's own instrumentation of the same classes ({@code order} 0), which makes a Richter
     * advice the inner one: its enter runs after the agent's (inside the client span the agent opened) and its exit
     * before the agent's (so a skipped call still ends that span with the mock's status or the refusal's exception).
     * A module whose exit must run after the agent's overrides this with a negative order.
     */
    @Override
    public int order() {
        return 1;
    }
}
