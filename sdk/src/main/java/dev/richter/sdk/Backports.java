package dev.richter.sdk;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The Java 9–11 library methods the SDK and the agent extension ({@code richter-otel-extension}, which shades the SDK)
 * would use, written for Java 8: both are compiled for Java 8 so that the extension loads on every JVM the
 * OpenTelemetry agent runs on. Each method behaves as the one it stands for, but where noted.
 */
public final class Backports {
    private Backports() {}

    /** {@code s.isBlank()} (Java 11): empty or only {@link Character#isWhitespace} code points. */
    public static boolean isBlank(String s) {
        return s.codePoints().allMatch(Character::isWhitespace);
    }

    /** {@code s.strip()} (Java 11): {@code s} without leading and trailing {@link Character#isWhitespace} code points. */
    public static String strip(String s) {
        int start = 0;
        int end = s.length();
        while (start < end && Character.isWhitespace(s.codePointAt(start))) {
            start += Character.charCount(s.codePointAt(start));
        }
        while (end > start && Character.isWhitespace(s.codePointBefore(end))) {
            end -= Character.charCount(s.codePointBefore(end));
        }
        return s.substring(start, end);
    }

    /**
     * {@code List.copyOf(c)} (Java 10): an unmodifiable copy, in {@code c}'s order.
     *
     * @throws NullPointerException when {@code c} or one of its elements is null
     */
    public static <T> List<T> listCopy(Collection<? extends T> c) {
        List<T> copy = new ArrayList<>(c);
        copy.forEach(Objects::requireNonNull);
        return Collections.unmodifiableList(copy);
    }

    /**
     * {@code Set.copyOf(c)} (Java 10): an unmodifiable copy; unlike it, iterates in {@code c}'s order.
     *
     * @throws NullPointerException when {@code c} or one of its elements is null
     */
    public static <T> Set<T> setCopy(Collection<? extends T> c) {
        Set<T> copy = new LinkedHashSet<>(c);
        copy.forEach(Objects::requireNonNull);
        return Collections.unmodifiableSet(copy);
    }

    /**
     * {@code Map.copyOf(m)} (Java 10): an unmodifiable copy; unlike it, iterates in {@code m}'s order.
     *
     * @throws NullPointerException when {@code m}, one of its keys or one of its values is null
     */
    public static <K, V> Map<K, V> mapCopy(Map<? extends K, ? extends V> m) {
        Map<K, V> copy = new LinkedHashMap<>(m);
        copy.forEach((k, v) -> {
            Objects.requireNonNull(k);
            Objects.requireNonNull(v);
        });
        return Collections.unmodifiableMap(copy);
    }
}
