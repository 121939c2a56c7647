package dev.richter.links.trace;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Where a value sits in a JSON document, for error messages: which top-level value (a file may hold
 * several, one per line), then field names and array indices, rendered as
 * {@code resourceSpans[0].scopeSpans[0].spans[0].traceId}. A segment may mark an embedded JSON
 * document held in a string (X-Ray BatchGetTraces {@code Document}); the path then continues inside
 * it and {@link TraceDocuments} reports the position of that string. Immutable; each step is one
 * small object, so parsers build paths only when they report an error or per document.
 */
final class JsonPath {
    private final JsonPath parent;
    private final int valueIndex;
    private final String field;
    private final int index;
    private final boolean embedded;

    private JsonPath(JsonPath parent, int valueIndex, String field, int index, boolean embedded) {
        this.parent = parent;
        this.valueIndex = valueIndex;
        this.field = field;
        this.index = index;
        this.embedded = embedded;
    }

    /** The {@code valueIndex}-th top-level JSON value of the document (0-based). */
    static JsonPath value(int valueIndex) {
        return new JsonPath(null, valueIndex, null, -1, false);
    }

    JsonPath field(String name) {
        return new JsonPath(this, valueIndex, name, -1, false);
    }

    JsonPath index(int i) {
        return new JsonPath(this, valueIndex, null, i, false);
    }

    /** The string at this path is itself a JSON document; what follows is inside it. */
    JsonPath embedded() {
        return new JsonPath(this, valueIndex, null, -1, true);
    }

    int valueIndex() {
        return valueIndex;
    }

    /** The steps from the top-level value down, root excluded. */
    Deque<JsonPath> steps() {
        Deque<JsonPath> steps = new ArrayDeque<>();
        for (JsonPath p = this; p.parent != null; p = p.parent) {
            steps.addFirst(p);
        }
        return steps;
    }

    boolean isField() {
        return field != null;
    }

    boolean isEmbedded() {
        return embedded;
    }

    String fieldName() {
        return field;
    }

    int arrayIndex() {
        return index;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (JsonPath p : steps()) {
            if (p.embedded) {
                b.append(" (embedded JSON)");
            } else if (p.field != null) {
                if (!b.isEmpty()) {
                    b.append('.');
                }
                b.append(p.field);
            } else {
                b.append('[').append(p.index).append(']');
            }
        }
        return b.isEmpty() ? "$" : b.toString();
    }
}
