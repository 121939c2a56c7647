package dev.richter.links.middleware;

import dev.richter.links.trace.InstrumentationScope;
import dev.richter.links.trace.Span;
import java.util.List;

/** Recorded spans reshaped for the guarded-middleware tests (test-jar: the checks' tests use them too). */
public final class MiddlewareFixtures {
    private MiddlewareFixtures() {}

    /**
     * {@code spans} with the gateway's reactor-netty client spans read as a bare Netty 4.1 client's ({@code
     * io.opentelemetry.netty-4.1} CLIENT), which the extension does not guard: the shop's recording as a service on an
     * unguarded client would make it.
     */
    public static List<Span> withUnguardedClient(List<Span> spans) {
        return spans.stream().map(s -> s.scope().name().equals("io.opentelemetry.reactor-netty-1.0")
                ? new Span(s.traceId(), s.spanId(), s.parentSpanId(), s.links(), s.service(), s.operation(), s.kind(),
                        s.peerService(), s.attributes(), s.startEpochNanos(), s.durationNanos(),
                        new InstrumentationScope("io.opentelemetry.netty-4.1", s.scope().version()))
                : s).toList();
    }
}
