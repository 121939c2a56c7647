package dev.richter.agent.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.sdk.Backports;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * The document's {@code shadows}: where each production target's marked traffic goes, by kind. Read from {@code
 * [{"kind": "table"|"schema"|"cache"|"topic", "production": "...", "shadow": "...", "service": "..."}]} (the {@code
 * Isolation} schema of openapi.json); every entry applies in this JVM whatever its {@code service} (the document a
 * JVM loads is its team's). Names of tables and schemas compare case-insensitively, key prefixes and topics exactly. A
 * value: equal to another with the same components.
 *
 * @param tables       production table (lower case) → shadow table, {@code kind: table}
 * @param schemas      production database or schema (lower case) → shadow, {@code kind: schema}
 * @param cachePrefixes production key prefix → shadow key prefix, longest production prefix first, {@code kind:
 *                      cache}
 * @param topics       production topic → shadow topic, {@code kind: topic}
 */
public final class Shadows {
    /** No shadows: every marked write is refused. */
    public static final Shadows NONE = new Shadows(Collections.emptyMap(), Collections.emptyMap(),
            Collections.emptyMap(), Collections.emptyMap());

    private final Map<String, String> tables;
    private final Map<String, String> schemas;
    private final Map<String, String> cachePrefixes;
    private final Map<String, String> topics;

    public Shadows(Map<String, String> tables, Map<String, String> schemas, Map<String, String> cachePrefixes,
                   Map<String, String> topics) {
        this.tables = Backports.mapCopy(tables);
        this.schemas = Backports.mapCopy(schemas);
        this.cachePrefixes = Collections.unmodifiableMap(new LinkedHashMap<>(cachePrefixes));
        this.topics = Backports.mapCopy(topics);
    }

    public Map<String, String> tables() {
        return tables;
    }

    public Map<String, String> schemas() {
        return schemas;
    }

    public Map<String, String> cachePrefixes() {
        return cachePrefixes;
    }

    public Map<String, String> topics() {
        return topics;
    }

    /**
     * @param node the document's {@code shadows}, or a missing node
     * @throws IllegalArgumentException naming the entry, e.g. {@code shadows[1].kind: must be one of table, schema,
     *                                  cache, topic}, or two shadows for one production target
     */
    static Shadows parse(JsonNode node) {
        if (node == null || node.isMissingNode() || node.isNull()) {
            return NONE;
        }
        if (!node.isArray()) {
            throw new IllegalArgumentException("shadows: must be an array of {kind, production, shadow, service}");
        }
        Map<String, String> tables = new LinkedHashMap<>();
        Map<String, String> schemas = new LinkedHashMap<>();
        Map<String, String> prefixes = new LinkedHashMap<>();
        Map<String, String> topics = new LinkedHashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode e = node.get(i);
            String at = "shadows[" + i + "]";
            String production = text(e, "production", at);
            String shadow = text(e, "shadow", at);
            if (production.equals(shadow)) {
                throw new IllegalArgumentException(at + ": shadow must differ from production '" + production + "'");
            }
            String kind = text(e, "kind", at);
            Map<String, String> into;
            if (kind.equals("table")) {
                into = tables;
            } else if (kind.equals("schema")) {
                into = schemas;
            } else if (kind.equals("cache")) {
                into = prefixes;
            } else if (kind.equals("topic")) {
                into = topics;
            } else {
                throw new IllegalArgumentException(at + ".kind: must be one of table, schema, cache, topic");
            }
            String key = into == prefixes || into == topics ? production : production.toLowerCase(Locale.ROOT);
            if (into.putIfAbsent(key, shadow) != null) {
                throw new IllegalArgumentException(at + ": a second shadow for '" + production + "'");
            }
        }
        List<Map.Entry<String, String>> byLength = new ArrayList<>(prefixes.entrySet());
        byLength.sort(Comparator.comparingInt((Map.Entry<String, String> p) -> p.getKey().length()).reversed());
        Map<String, String> longestFirst = new LinkedHashMap<>();
        byLength.forEach(p -> longestFirst.put(p.getKey(), p.getValue()));
        return new Shadows(tables, schemas, longestFirst, topics);
    }

    private static String text(JsonNode entry, String field, String at) {
        JsonNode v = entry.path(field);
        if (!v.isTextual() || Backports.isBlank(v.asText())) {
            throw new IllegalArgumentException(at + "." + field + ": required, non-empty text");
        }
        return Backports.strip(v.asText());
    }

    /** The shadow table of {@code table} (any case, unquoted), if it has one. */
    public Optional<String> shadowTable(String table) {
        return Optional.ofNullable(tables.get(table.toLowerCase(Locale.ROOT)));
    }

    /** Whether {@code table} is itself a configured shadow table (any case). */
    public boolean isShadowTable(String table) {
        return lowerValues(tables).contains(table.toLowerCase(Locale.ROOT));
    }

    /** The shadow of a production database or schema (any case), if it has one. */
    public Optional<String> shadowSchema(String name) {
        return Optional.ofNullable(schemas.get(name.toLowerCase(Locale.ROOT)));
    }

    /** Whether {@code name} is itself a configured shadow database or schema (any case). */
    public boolean isShadowSchema(String name) {
        return lowerValues(schemas).contains(name.toLowerCase(Locale.ROOT));
    }

    private static Set<String> lowerValues(Map<String, String> map) {
        Set<String> out = new LinkedHashSet<>();
        map.values().forEach(v -> out.add(v.toLowerCase(Locale.ROOT)));
        return out;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Shadows)) {
            return false;
        }
        Shadows s = (Shadows) o;
        return tables.equals(s.tables) && schemas.equals(s.schemas) && cachePrefixes.equals(s.cachePrefixes)
                && topics.equals(s.topics);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, schemas, cachePrefixes, topics);
    }

    @Override
    public String toString() {
        return "Shadows[tables=" + tables + ", schemas=" + schemas + ", cachePrefixes=" + cachePrefixes + ", topics="
                + topics + "]";
    }
}
