package dev.richter.decider;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.List;
import java.util.function.Function;

/**
 * One named builder setter of a configuration record and the value it is called with, for the tests that every
 * setter changes exactly its field ({@link #assertEachSetsOnlyItsField}) and every out-of-range value is refused
 * naming the field ({@link #assertRefused}).
 *
 * @param field the record component the setter sets
 * @param set   calls the setter on a builder
 * @param value what the component reads afterwards (boxed as the component's type)
 */
record Knob<B>(String field, Function<B, B> set, Object value) {

    /**
     * Builds {@code base} with each knob applied alone and asserts that its field reads {@code value} and every
     * other component reads as in {@code base}; and that the knobs name every component once, in order.
     */
    static <R extends Record, B> void assertEachSetsOnlyItsField(R base, Function<R, B> toBuilder, Function<B, R> build,
                                                                 List<Knob<B>> knobs) {
        RecordComponent[] components = base.getClass().getRecordComponents();
        assertEquals(Arrays.stream(components).map(RecordComponent::getName).toList(),
                knobs.stream().map(Knob::field).toList(), "one setter per field");
        for (Knob<B> k : knobs) {
            R changed = build.apply(k.set.apply(toBuilder.apply(base)));
            for (RecordComponent c : components) {
                Object expected = c.getName().equals(k.field) ? k.value : read(c, base);
                assertEquals(expected, read(c, changed), "after " + k.field + "(" + k.value + "): " + c.getName());
            }
        }
    }

    /** Asserts that building with {@code set} throws an IllegalArgumentException with exactly {@code message}. */
    static <B> void assertRefused(B builder, Function<B, B> set, Function<B, ?> build, String message) {
        var e = assertThrows(IllegalArgumentException.class, () -> build.apply(set.apply(builder)), message);
        assertEquals(message, e.getMessage());
    }

    private static Object read(RecordComponent c, Record r) {
        try {
            return c.getAccessor().invoke(r);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }
}
