package dev.richter.links.graph;

import java.util.Locale;

/**
 * The two granularities of a call graph (DESIGN §2 "node"): {@code service} nodes are service names;
 * {@code interface} nodes are {@code service + " " + operation}, e.g. {@code order-svc POST /orders}.
 */
public enum Dimension {
    SERVICE, INTERFACE;

    /** Lower-case wire name: {@code service} or {@code interface}. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Parses {@code service}/{@code interface} (any case); throws IllegalArgumentException otherwise. */
    public static Dimension of(String text) {
        if (text == null) {
            throw new IllegalArgumentException("dimension is required: service or interface");
        }
        return switch (text.toLowerCase(Locale.ROOT)) {
            case "service" -> SERVICE;
            case "interface" -> INTERFACE;
            default -> throw new IllegalArgumentException("dimension must be service or interface, got " + text);
        };
    }

    /** Placeholder operation for spans without a name (Zipkin allows an empty name). */
    public static final String UNNAMED_OPERATION = "(unnamed)";

    /** The interface node id of {@code operation} in {@code service}; a blank operation is {@value #UNNAMED_OPERATION}. */
    public static String interfaceNode(String service, String operation) {
        return service + " " + (operation.isBlank() ? UNNAMED_OPERATION : operation);
    }
}
