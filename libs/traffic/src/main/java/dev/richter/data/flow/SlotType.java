package dev.richter.data.flow;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Optional;

/** The type of a slot, by the JSON value it holds (RFC 8259 value kinds; integers and decimals are both numbers). */
public enum SlotType {
    STRING, NUMBER, BOOLEAN, OBJECT, ARRAY;

    /** The type named {@code name} ({@code string}, {@code number}, {@code boolean}, {@code object}, {@code array}). */
    public static Optional<SlotType> parse(String name) {
        if (name == null) {
            return Optional.empty();
        }
        for (SlotType t : values()) {
            if (t.wireName().equals(name)) {
                return Optional.of(t);
            }
        }
        return Optional.empty();
    }

    /** The name in a flow definition. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** Whether {@code value} is of this type (JSON null is of none). */
    public boolean holds(JsonNode value) {
        return switch (this) {
            case STRING -> value.isTextual();
            case NUMBER -> value.isNumber();
            case BOOLEAN -> value.isBoolean();
            case OBJECT -> value.isObject();
            case ARRAY -> value.isArray();
        };
    }

    /** The JSON kind of {@code value}, for messages ({@code null} for JSON null). */
    public static String kindOf(JsonNode value) {
        return value.isTextual() ? "string" : value.isNumber() ? "number" : value.isBoolean() ? "boolean"
                : value.isObject() ? "object" : value.isArray() ? "array" : "null";
    }
}
