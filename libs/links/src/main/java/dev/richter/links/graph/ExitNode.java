package dev.richter.links.graph;

import dev.richter.links.datastore.DatastoreCall;
import dev.richter.links.trace.Span;
import java.util.Optional;

/**
 * The called node of a CLIENT/PRODUCER span to a peer that is not instrumented (an exit candidate, DESIGN §2 "exit"):
 * {@code peer + " " + operation}, where the peer is {@link Span#peerService()} and the operation the span's name,
 * except for a SQL database call: its verb and tables, {@code h2://127.0.0.1:18092/shop SELECT stock}. The agent's
 * JDBC span name ({@code SELECT shop.stock}) carries {@code db.name}, which may be a per-JVM random in-memory name;
 * the peer already names the database. A call with no readable table keeps only its verb.
 */
public final class ExitNode {
    private ExitNode() {}

    /** The interface node {@code span} calls (see the class comment). */
    public static String of(Span span) {
        Optional<DatastoreCall> call = DatastoreCall.of(span);
        if (call.isPresent() && DatastoreCall.TABLE.equals(call.get().kind()) && !call.get().operation().isEmpty()) {
            DatastoreCall c = call.get();
            String tables = String.join(",", c.targets());
            return Dimension.interfaceNode(span.peerService(),
                    tables.isEmpty() ? c.operation() : c.operation() + " " + tables);
        }
        return Dimension.interfaceNode(span.peerService(), span.operation());
    }

    /**
     * True when {@code span} is a SQL schema or privilege statement ({@link DatastoreCall#schema}): it calls no exit,
     * whenever it ran (e.g. the {@code CREATE TABLE}s a service runs at boot).
     */
    public static boolean schemaStatement(Span span) {
        return DatastoreCall.of(span).map(DatastoreCall::schema).orElse(false);
    }
}
