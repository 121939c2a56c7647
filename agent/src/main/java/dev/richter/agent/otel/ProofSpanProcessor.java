package dev.richter.agent.otel;

import dev.richter.agent.isolation.IsolationProof;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;

/**
 * Stamps {@link IsolationProof} on each span that starts in marked work (its parent context's baggage holds the
 * marker), whatever instrumentation started it; unmarked spans are left as they are (one baggage lookup).
 */
public final class ProofSpanProcessor implements SpanProcessor {
    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
        if (IsolationProof.marked(parentContext)) {
            IsolationProof.stamp(span);
        }
    }

    @Override
    public boolean isStartRequired() {
        return true;
    }

    @Override
    public void onEnd(ReadableSpan span) {}

    @Override
    public boolean isEndRequired() {
        return false;
    }

    @Override
    public CompletableResultCode shutdown() {
        return CompletableResultCode.ofSuccess();
    }
}
