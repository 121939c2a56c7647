package dev.richter.checks.safety;

import java.util.List;
import org.semver4j.range.Range;
import org.semver4j.range.RangeList;
import org.semver4j.range.RangeListFactory;

/**
 * A team's rule "component X in this version range carries the marker" (e.g. a Kafka client that
 * propagates baggage in record headers, a connection pool that keeps the context).
 *
 * @param component which SBOM components the rule covers: a name ({@code kafka-clients}), a Maven
 *     {@code group:name} ({@code org.apache.kafka:kafka-clients}), or a package-URL prefix without
 *     version ({@code pkg:maven/org.apache.kafka/kafka-clients}); compared case-insensitively
 * @param range semantic version range (node-semver syntax as semver4j reads it: {@code >=1.4.0 <2.0.0},
 *     {@code ^1.4.0}, {@code 1.4.x}, {@code >=2.0.0 || >=1.9.3 <2.0.0}); versions in it are known to carry
 *     the marker
 * @param note why, shown in evidence (e.g. a changelog line); may be empty
 * @throws IllegalArgumentException when the component is blank, or the range names no version or does
 *     not parse (semver4j reads garbage, {@code *} and {@code latest} as "any version": such a rule would
 *     pass everything)
 */
public record MiddlewareRule(String component, String range, String note) {
    public MiddlewareRule {
        if (component == null || component.isBlank()) {
            throw new IllegalArgumentException("component: required, e.g. org.apache.kafka:kafka-clients");
        }
        if (range == null || range.chars().noneMatch(Character::isDigit)
                || RangeListFactory.create(range, true).get().isEmpty()) {
            throw new IllegalArgumentException("range: not a semantic version range: '" + range
                    + "' (e.g. >=1.4.0 <2.0.0)");
        }
        note = note == null ? "" : note;
    }

    /** The parsed range; pre-release versions are compared like releases ({@code 3.9.0-SNAPSHOT} ≥ 3.0.0). */
    public RangeList ranges() {
        return RangeListFactory.create(range, true);
    }

    /** Lower bounds of the range's alternatives, for "below the range" evidence. */
    List<Range> bounds() {
        return ranges().get().stream().flatMap(List::stream).toList();
    }

    /** {@code component range}, e.g. {@code org.apache.kafka:kafka-clients >=3.0.0}, plus the note. */
    public String describe() {
        return component + " " + range + (note.isEmpty() ? "" : " (" + note + ")");
    }
}
