package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowCheck;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.sdk.ExitMocks;
import dev.richter.sdk.MarkerProof;
import dev.richter.sdk.Marked;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.baggage.BaggageBuilder;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.internal.InstrumentationUtil;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.ReadableSpan;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.logging.Logger;

/**
 * The extension's {@link IsolationGuard}: the marker from the current OpenTelemetry context's baggage (member {@value
 * Marked#DEFAULT_KEY}={@value Marked#DEFAULT_VALUE}, Richter's default marker, so the service needs no marker code)
 * counted only with a proof that verifies against the loaded document's keys ({@link MarkerKeys}; member {@value
 * MarkerProof#MEMBER}), the rule of {@link HttpExitPolicy} over the configuration of an {@link IsolationConfigSource}, and the evidence on
 * the span. Never throws: an error while deciding refuses a marked call; a marker that cannot be read counts as
 * unmarked (the extension must never break production traffic).
 */
public final class RichterIsolationGuard implements IsolationGuard {
    /**
     * Span attribute of a mocked call, with the text value {@code "true"}: the SDK's name and value, which the {@code
     * mocked-exit} check reads.
     */
    public static final String MOCK = ExitMocks.MOCK_ATTRIBUTE;
    /** Span attribute naming the exit a mock answered, as configured. */
    public static final String MOCK_EXIT = ExitMocks.MOCK_EXIT_ATTRIBUTE;
    /** Span attribute of a refused call (or inbound request): the refusal's message, naming the exit and reason. */
    public static final String REFUSED = "richter.refused";
    /** Span attribute of a call report mode let through that enforce mode would have refused: the same message. */
    public static final String WOULD_REFUSE = "richter.would_refuse";
    /** Span attribute of a datastore call routed to a shadow: the shadow table(s), database, schema or key. */
    public static final String SHADOW_TARGET = "richter.shadow.target";
    /**
     * Span attribute {@code report} beside every decision recorded in report mode (a mock, a shadow route, a call let
     * through): the evidence that enforcement was off, which the {@code isolation-enforced} check fails on.
     */
    public static final String MODE = "richter.isolation.mode";
    /**
     * Span attribute of an inbound request whose marker's proof did not verify ({@link MarkerKeys}): the reason and
     * the run the token claimed, e.g. {@code expired: run run-42 of team shop-team}. The request ran as production
     * traffic, with the marker taken out of its context.
     */
    public static final String FORGED = "richter.marker.forged";

    /** The client a context's connects and writes are made for, when {@link #decidedClient} made it current. */
    private static final ContextKey<String> DECIDED_CLIENT = ContextKey.named("richter-decided-client");

    private static final Logger LOG = Logger.getLogger(RichterIsolationGuard.class.getName());
    private static final MarkerScope NOTHING = () -> { };

    private final IsolationConfigSource source;
    private final BooleanSupplier marked;
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong wouldRefuse = new AtomicLong();
    private final AtomicLong forged = new AtomicLong();
    /** The SQL rule of the configuration last seen, rebuilt (with an empty cache) when a new one loads. */
    private volatile SqlRule sql;
    private final NetworkPolicy network = new NetworkPolicy();

    /** The SQL rule of one configuration. */
    private static final class SqlRule {
        final IsolationConfig config;
        final SqlShadowPolicy policy;

        SqlRule(IsolationConfig config, SqlShadowPolicy policy) {
            this.config = config;
            this.policy = policy;
        }
    }

    /**
     * @param source the configuration
     * @param marked whether the call being made carries the marker; {@link #markedInCurrentContext()} in the agent
     */
    public RichterIsolationGuard(IsolationConfigSource source, BooleanSupplier marked) {
        this.source = source;
        this.marked = marked;
    }

    /**
     * Whether the call being made is marked work: the marker is current ({@code marked}) and, once a configuration is
     * loaded, the context's proof is accepted by its {@link MarkerKeys}. Before one loads, the marker alone counts,
     * so marked calls are refused (fail closed).
     */
    private boolean markedAndProven() {
        return marked.getAsBoolean() && proofAccepted(Baggage.current());
    }

    /**
     * Whether {@code baggage}'s proof ({@value MarkerProof#MEMBER}) is accepted by the loaded configuration: always
     * before one loads and when it names no keys; else when its check is {@link MarkerProof.Check#VALID}.
     */
    public boolean proofAccepted(Baggage baggage) {
        Optional<IsolationConfig> config = source.current();
        return !config.isPresent() || config.get().marker().check(baggage.getEntryValue(MarkerProof.MEMBER),
                System.currentTimeMillis() / 1000) == MarkerProof.Check.VALID;
    }

    /** Inbound requests whose marker's proof did not verify, since the JVM started. */
    public long forgedMarkers() {
        return forged.get();
    }

    /** Whether the current OpenTelemetry context's baggage holds Richter's default marker. */
    public static boolean markedInCurrentContext() {
        return Marked.DEFAULT_VALUE.equals(Baggage.current().getEntryValue(Marked.DEFAULT_KEY));
    }

    @Override
    public ExitDecision decideHttp(String method, String host, int port, String path) {
        return decideHttp(method, host, port, path, false);
    }

    @Override
    public ExitDecision decideHttp(String method, String host, int port, String path, boolean markedWhereBuilt) {
        boolean isMarked = markedWhereBuilt;
        try {
            isMarked = markedWhereBuilt || markedAndProven();
            if (isMarked && Context.current().get(DECIDED_CLIENT) != null) {
                // the HTTP call of a client whose call the extension decided (the AWS SDK's): decided there
                return ExitDecision.PASS;
            }
            return HttpExitPolicy.decide(isMarked, method, host, port, path, source.current());
        } catch (RuntimeException | LinkageError e) {
            return isMarked ? new ExitDecision.Refuse(host + ":" + port + " " + method + " " + path,
                    "isolation failed to decide (" + e + ")") : ExitDecision.PASS;
        }
    }

    @Override
    public ExitDecision decideGrpc(String host, int port, String fullMethod) {
        boolean isMarked = false;
        try {
            isMarked = markedAndProven();
            return GrpcExitPolicy.decide(isMarked, host, port, fullMethod, source.current());
        } catch (RuntimeException | LinkageError e) {
            return isMarked ? new ExitDecision.Refuse(host + ":" + port + "/" + fullMethod,
                    "isolation failed to decide (" + e + ")") : ExitDecision.PASS;
        }
    }

    @Override
    public ExitDecision decideNetwork(String host, String ip, int port) {
        boolean isMarked = false;
        try {
            isMarked = markedAndProven();
            if (!isMarked) {
                return ExitDecision.PASS;
            }
            if (alreadyReported(Span.current())) {
                return ExitDecision.PASS;
            }
            String decidedBy = Context.current().get(DECIDED_CLIENT);
            return network.decide(true, host, ip, port, new Throwable().getStackTrace(),
                    decidedBy == null ? "" : decidedBy, source.current());
        } catch (RuntimeException | LinkageError e) {
            return isMarked ? new ExitDecision.Refuse(host + ":" + port, "isolation failed to decide (" + e + ")")
                    : ExitDecision.PASS;
        }
    }

    @Override
    public MarkerScope decidedClient(String client) {
        try {
            if (!markedAndProven()) {
                return NOTHING;
            }
            Scope scope = Context.current().with(DECIDED_CLIENT, client).makeCurrent();
            return scope::close;
        } catch (RuntimeException | LinkageError e) {
            return NOTHING;
        }
    }

    @Override
    public Object configuration() {
        try {
            return source.current().orElse(null);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    @Override
    public String markerProof() {
        try {
            return Baggage.current().getEntryValue(MarkerProof.MEMBER);
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    @Override
    public boolean marked() {
        try {
            return markedAndProven();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @Override
    public ShadowDecision decideSql(String sqlText, String catalog, String schema) {
        return marked() ? decideStore("sql", c -> sqlPolicy(c).decide(sqlText, catalog, schema))
                : ShadowDecision.UNTOUCHED;
    }

    @Override
    public boolean decidesByConnectionSchema() {
        Optional<IsolationConfig> c = source.current();
        return !c.isPresent() || !c.get().shadows().schemas().isEmpty();
    }

    @Override
    public ShadowDecision decidePreparedUnmarked() {
        String reason = "the prepared statement was prepared by an unmarked call, so its SQL was never shadowed:"
                + " a marked call prepares its own";
        return marked() ? decideStore("prepared statement", c -> c.mode() == IsolationMode.ENFORCE
                ? ShadowDecision.refuse("prepared statement", reason)
                : new ShadowDecision(Optional.empty(), "", new ExitDecision.WouldRefuse("prepared statement", reason)))
                : ShadowDecision.UNTOUCHED;
    }

    @Override
    public ShadowDecision decideJdbcUrl(String url) {
        return marked() ? decideStore("jdbc " + url, c -> DatabaseShadowPolicy.url(url, c.shadows()))
                : ShadowDecision.UNTOUCHED;
    }

    @Override
    public ShadowDecision decideConnection(String catalog, String schema) {
        return marked() ? decideStore("database " + catalog + "/" + schema,
                c -> DatabaseShadowPolicy.connection(catalog, schema, c.shadows())) : ShadowDecision.UNTOUCHED;
    }

    @Override
    public ShadowDecision decideRedis(String command, String key) {
        return decideRedis(command, key, false);
    }

    @Override
    public ShadowDecision decideRedis(String command, String key, boolean markedWhereBuilt) {
        return markedWhereBuilt || marked() ? decideStore("redis " + command + " " + key,
                c -> RedisKeyPolicy.decide(command, key, c.shadows(), c.mode())) : ShadowDecision.UNTOUCHED;
    }

    @Override
    public ShadowDecision decideTopic(String topic) {
        return marked() ? decideStore("topic " + topic, c -> TopicPolicy.decide(topic, c.shadows(), c.mode()))
                : ShadowDecision.UNTOUCHED;
    }

    @Override
    public ShadowDecision decideAwsSdk(String service, String operation, String target) {
        try {
            if (!marked() || AwsSdkPolicy.CLIENT.equals(Context.current().get(DECIDED_CLIENT))) {
                return ShadowDecision.UNTOUCHED;
            }
        } catch (RuntimeException | LinkageError e) {
            return ShadowDecision.refuse(service + " " + operation, "isolation failed to decide (" + e + ")");
        }
        return decideStore(service + " " + operation + (target.isEmpty() ? "" : " " + target),
                c -> AwsSdkPolicy.decide(service, operation, target, c.shadows(), c.mode()));
    }

    /** A marked datastore call: refused before the configuration loads, or when the rule fails; else the rule's. */
    private ShadowDecision decideStore(String exit, Function<IsolationConfig, ShadowDecision> rule) {
        try {
            Optional<IsolationConfig> config = source.current();
            return config.isPresent() ? rule.apply(config.get()) : ShadowDecision.refuse(exit, HttpExitPolicy.NOT_LOADED);
        } catch (RuntimeException | LinkageError e) {
            return ShadowDecision.refuse(exit, "isolation failed to decide (" + e + ")");
        }
    }

    private SqlShadowPolicy sqlPolicy(IsolationConfig config) {
        SqlRule r = sql;
        if (r == null || r.config != config) {
            r = new SqlRule(config, new SqlShadowPolicy(config.shadows(), config.mode()));
            sql = r;
        }
        return r.policy;
    }

    @Override
    public void record(ShadowDecision decision) {
        if (decision.shadowTarget().isEmpty() && decision.verdict() instanceof ExitDecision.Pass) {
            return;
        }
        try {
            if (!decision.shadowTarget().isEmpty()) {
                Span.current().setAttribute(SHADOW_TARGET, decision.shadowTarget());
                stampReportMode(Span.current());
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warning("Richter isolation: could not record " + decision + ": " + e);
        }
        record(decision.verdict());
    }

    @Override
    public void record(ExitDecision decision) {
        if (decision instanceof ExitDecision.Pass) {
            return;
        }
        try {
            Span span = Span.current();
            stampReportMode(span);
            if (decision instanceof ExitDecision.Mock) {
                span.setAttribute(MOCK, ExitMocks.MOCK_ATTRIBUTE_VALUE);
                span.setAttribute(MOCK_EXIT, ((ExitDecision.Mock) decision).exit());
            } else if (decision instanceof ExitDecision.Refuse) {
                String message = ((ExitDecision.Refuse) decision).message();
                refused.incrementAndGet();
                span.setAttribute(REFUSED, message);
                LOG.warning(message + " (refused so far: " + refused.get() + ")");
            } else if (decision instanceof ExitDecision.WouldRefuse) {
                String message = ((ExitDecision.WouldRefuse) decision).message();
                wouldRefuse.incrementAndGet();
                span.setAttribute(WOULD_REFUSE, message);
                LOG.warning(message + " (so far: " + wouldRefuse.get() + ")");
            }
        } catch (RuntimeException | LinkageError e) {
            LOG.warning("Richter isolation: could not record " + decision + ": " + e);
        }
    }

    /**
     * Whether {@code span} is a client span whose guarded client already decided this call and let it through in report
     * mode ({@link #WOULD_REFUSE} set): its connection is that same call, recorded once, by the client that understands
     * it. A span of another kind, or one whose attributes cannot be read, is not: the network decides.
     */
    static boolean alreadyReported(Span span) {
        return span instanceof ReadableSpan && ((ReadableSpan) span).getKind() == SpanKind.CLIENT
                && ((ReadableSpan) span).getAttribute(AttributeKey.stringKey(WOULD_REFUSE)) != null;
    }

    /** {@link #MODE}{@code =report} on {@code span} when the loaded configuration is in report mode. */
    private void stampReportMode(Span span) {
        if (source.current().map(c -> c.mode() == IsolationMode.REPORT).orElse(false)) {
            span.setAttribute(MODE, "report");
        }
    }

    @Override
    public Map<String, String> tableShadows() {
        try {
            Optional<IsolationConfig> config = source.current();
            return config.isPresent() ? config.get().shadows().tables() : Collections.emptyMap();
        } catch (RuntimeException | LinkageError e) {
            return Collections.emptyMap();
        }
    }

    @Override
    public Map<String, String> topicShadows() {
        try {
            Optional<IsolationConfig> config = source.current();
            return config.isPresent() ? config.get().shadows().topics() : Collections.emptyMap();
        } catch (RuntimeException | LinkageError e) {
            return Collections.emptyMap();
        }
    }

    @Override
    public boolean acceptsMarker(String baggageHeader) {
        try {
            if (Marked.fromBaggage(baggageHeader, Marked.DEFAULT_KEY, Marked.DEFAULT_VALUE) != Marked.MARKED) {
                return false;
            }
            Optional<IsolationConfig> config = source.current();
            return !config.isPresent() || config.get().marker().check(
                    Marked.memberValue(baggageHeader, MarkerProof.MEMBER), System.currentTimeMillis() / 1000)
                    == MarkerProof.Check.VALID;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @Override
    public void recordShadowChecks(String database, List<ShadowCheck> checks) {
        ShadowPreCheckSpans.record(database, checks);
    }

    @Override
    public MarkerScope detached() {
        try {
            // the root context with the agent's instrumentation suppressed (what the SDK's exporters use for their own
            // calls): Richter's own work here, e.g. the shadow pre-check's probe INSERT, is no span of the service's
            Context[] suppressed = {Context.root()};
            try (Scope root = Context.root().makeCurrent()) {
                InstrumentationUtil.suppressInstrumentation(() -> suppressed[0] = Context.current());
            }
            Scope scope = suppressed[0].makeCurrent();
            return scope::close;
        } catch (RuntimeException | LinkageError e) {
            return NOTHING;
        }
    }

    @Override
    public MarkerScope markInbound(String baggageHeader) {
        try {
            if (Marked.fromBaggage(baggageHeader, Marked.DEFAULT_KEY, Marked.DEFAULT_VALUE) != Marked.MARKED) {
                return NOTHING;
            }
            String token = Marked.memberValue(baggageHeader, MarkerProof.MEMBER);
            Optional<IsolationConfig> config = source.current();
            MarkerProof.Check check = config.isPresent()
                    ? config.get().marker().check(token, System.currentTimeMillis() / 1000) : MarkerProof.Check.VALID;
            if (check != MarkerProof.Check.VALID) {
                return asProduction(check, token);
            }
            if (marked.getAsBoolean()) {
                return NOTHING;
            }
            BaggageBuilder b = Baggage.current().toBuilder().put(Marked.DEFAULT_KEY, Marked.DEFAULT_VALUE);
            if (token != null) {
                b.put(MarkerProof.MEMBER, token);
            }
            Scope scope = Context.current().with(b.build()).makeCurrent();
            return scope::close;
        } catch (RuntimeException | LinkageError e) {
            LOG.warning("Richter isolation: could not make an inbound request's marker current: " + e);
            return NOTHING;
        }
    }

    /**
     * An inbound request whose marker did not verify: counted, {@link #FORGED} on the current (server) span, and its
     * handling made current without the marker or the proof, so it runs, and propagates, as production traffic.
     */
    private MarkerScope asProduction(MarkerProof.Check check, String token) {
        long n = forged.incrementAndGet();
        MarkerProof.Claims claims = MarkerProof.claims(token);
        String reason = check.name().toLowerCase(java.util.Locale.ROOT).replace('_', ' ')
                + (claims == null ? "" : ": run " + claims.run() + " of team " + claims.team());
        try {
            Span.current().setAttribute(FORGED, reason);
        } catch (RuntimeException | LinkageError e) {
            // evidence only: the request runs as production all the same
        }
        if (n == 1 || Long.bitCount(n) == 1) {
            LOG.warning("Richter isolation: an inbound request's marker did not verify (" + reason
                    + "); it runs as production traffic (forged markers so far: " + n + ")");
        }
        Scope scope = Context.current()
                .with(Baggage.current().toBuilder().remove(Marked.DEFAULT_KEY).remove(MarkerProof.MEMBER).build())
                .makeCurrent();
        return scope::close;
    }

    @Override
    public Optional<String> inboundRefusal(String baggageHeader) {
        if (Marked.fromBaggage(baggageHeader, Marked.DEFAULT_KEY, Marked.DEFAULT_VALUE) != Marked.MARKED
                || source.current().isPresent()) {
            return Optional.empty();
        }
        String reason = "Richter isolation: " + HttpExitPolicy.NOT_LOADED + " (" + source.state().lastError()
                + "); marked requests are refused until it loads";
        refused.incrementAndGet();
        try {
            Span.current().setAttribute(REFUSED, reason);
        } catch (RuntimeException | LinkageError e) {
            // evidence only: the refusal stands
        }
        return Optional.of(reason);
    }
}
