package dev.richter.agent.jdk;

import com.sun.net.httpserver.Filter;
import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpExchange;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/**
 * Fail closed at the JDK's {@code com.sun.net.httpserver.HttpServer}: while the isolation configuration is not
 * loaded, a marked inbound request (its {@code baggage} header holds the marker) is answered {@code 503} with a
 * plain-text reason and never reaches the service's handler; unmarked requests always do. Once loaded, a marked
 * request's handler runs with the marker current ({@link IsolationGuard#markInbound}), even where the agent did not
 * extract it. Added as the last filter of every context the service creates. A helper injected next to the JDK's
 * server (platform class loader).
 */
public final class InboundGate extends Filter {
    /** The one gate, shared by every context. */
    public static final InboundGate INSTANCE = new InboundGate();

    private InboundGate() {}

    /** Appends the gate to {@code context}'s filters, once. */
    public static void addTo(HttpContext context) {
        if (context != null && !context.getFilters().contains(INSTANCE)) {
            context.getFilters().add(INSTANCE);
        }
    }

    @Override
    public void doFilter(HttpExchange exchange, Chain chain) throws IOException {
        List<String> values = exchange.getRequestHeaders().get("baggage");
        String baggage = values == null ? "" : String.join(",", values);
        IsolationGuard guard = IsolationBridge.guard();
        Optional<String> refusal = guard.inboundRefusal(baggage);
        if (!refusal.isPresent()) {
            try (MarkerScope marked = guard.markInbound(baggage)) {
                chain.doFilter(exchange);
            }
            return;
        }
        byte[] body = (refusal.get() + "\n").getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        exchange.sendResponseHeaders(503, body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
        exchange.close();
    }

    @Override
    public String description() {
        return "Richter isolation: 503 for marked requests until the isolation configuration is loaded";
    }
}
