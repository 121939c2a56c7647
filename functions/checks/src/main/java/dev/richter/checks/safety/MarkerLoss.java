package dev.richter.checks.safety;

/**
 * Where marked traffic lost the marker, grouped over traces: one value per (entry, first unmarked
 * span's service and operation, hop, edge).
 *
 * @param entry interface node of the marked trace's entry, e.g. {@code order-svc post /orders}
 * @param hop how the unmarked span was reached from the last marked one
 * @param service service of the first span without the marker
 * @param operation its operation (span name)
 * @param spanId its span id (from the first trace seen)
 * @param traceId its trace id (first trace seen); for {@link Hop#NEW_TRACE} the new, unmarked trace
 * @param thread its {@code thread.name} attribute, {@code ""} when not recorded
 * @param lastMarked {@code service 'operation'} of the last marked span before the loss
 * @param markedTraceId the marked trace the loss happened in (equals {@code traceId} except for NEW_TRACE)
 * @param edge the service edge that runs unmarked because of the loss, {@code from->to}
 *     (e.g. {@code order-svc->stock-svc}); {@code ""} when nothing is called below the loss
 * @param traces marked traces of {@code entry} with this loss
 * @param markedTraces marked traces of {@code entry} in the batch
 */
public record MarkerLoss(String entry, Hop hop, String service, String operation, String spanId, String traceId,
                         String thread, String lastMarked, String markedTraceId, String edge, int traces,
                         int markedTraces) {

    /** How the first unmarked span hangs off the last marked one. */
    public enum Hop {
        /** Same service, different thread ({@code thread.name} differs): an executor hand-off without context. */
        ASYNC,
        /** Same service, same or unrecorded thread. */
        IN_PROCESS,
        /** Different service through a parent reference (HTTP, gRPC…): the callee did not get or keep the marker. */
        REMOTE,
        /** Through a messaging hop: a span link (consumer → producer) or a PRODUCER/CONSUMER parent. */
        MESSAGING,
        /** The in-scope work started a new trace without parent while a marked span of the same service was
         *  in progress: the context (and with it the marker) was dropped at an async hand-off. */
        NEW_TRACE;

        /** Words for evidence text, e.g. {@code async hop}. */
        public String words() {
            return switch (this) {
                case ASYNC -> "async hop";
                case IN_PROCESS -> "in-process hop";
                case REMOTE -> "remote call";
                case MESSAGING -> "messaging hop";
                case NEW_TRACE -> "async hop (context dropped, new trace)";
            };
        }
    }
}
