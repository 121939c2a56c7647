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
 * [{"kind": "table"|"schema"|"cache"|"topic"|"dynamodb"|"queue"|"sns-topic"|"s3"|"event-bus"|"kinesis-stream",
 * "production": "...", "shadow": "...", "service": "..."}]} (the {@code Isolation} schema of openapi.json); every entry
 * applies in this JVM whatever its {@code service} (the document a JVM loads is its team's). Names of SQL tables and
 * schemas compare case-insensitively; key prefixes, topics and the AWS kinds' names exactly (AWS's names are
 * case-sensitive). A value: equal to
 * another with the same components.
 *
 * <p>DynamoDB tables are a kind of their own ({@code dynamodb}), not {@code table}: a {@code table} shadow is a SQL
 * table, which the JDBC rule rewrites statements to and the shadow pre-check looks for in the service's database; a
 * DynamoDB table there would FAIL that check, and one name may be a SQL table and a DynamoDB table with different
 * shadows.
 *
 * @param tables         production table (lower case) → shadow table, {@code kind: table}
 * @param schemas        production database or schema (lower case) → shadow, {@code kind: schema}
 * @param cachePrefixes  production key prefix → shadow key prefix, longest production prefix first, {@code kind:
 *                       cache}
 * @param topics         production topic → shadow topic, {@code kind: topic}
 * @param dynamoDbTables production DynamoDB table name → shadow table name, {@code kind: dynamodb} (AWS SDK v2)
 * @param queues         production SQS queue (its name, or its whole URL) → shadow queue (a name, or a whole URL),
 *                       {@code kind: queue} (AWS SDK v2)
 * @param aws            SNS topics, S3 locations, EventBridge buses and Kinesis streams, {@code kind: sns-topic}, {@code
 *                       s3}, {@code event-bus}, {@code kinesis-stream} (AWS SDK v2; {@link AwsShadows} says what each
 *                       takes)
 */
public final class Shadows {
    /** No shadows: every marked write is refused. */
    public static final Shadows NONE = new Shadows(Collections.emptyMap(), Collections.emptyMap(),
            Collections.emptyMap(), Collections.emptyMap());

    /** The kinds of {@code shadows[].kind}, as the error of an unknown one lists them. */
    static final String KINDS = "table, schema, cache, topic, dynamodb, queue, " + String.join(", ", AwsShadows.KINDS);

    private final Map<String, String> tables;
    private final Map<String, String> schemas;
    private final Map<String, String> cachePrefixes;
    private final Map<String, String> topics;
    private final Map<String, String> dynamoDbTables;
    private final Map<String, String> queues;
    private final AwsShadows aws;

    /** Shadows of the SQL, Redis and Kafka kinds only (no DynamoDB table, no queue). */
    public Shadows(Map<String, String> tables, Map<String, String> schemas, Map<String, String> cachePrefixes,
                   Map<String, String> topics) {
        this(tables, schemas, cachePrefixes, topics, Collections.emptyMap(), Collections.emptyMap());
    }

    /** Shadows of every kind but those of {@link AwsShadows}. */
    public Shadows(Map<String, String> tables, Map<String, String> schemas, Map<String, String> cachePrefixes,
                   Map<String, String> topics, Map<String, String> dynamoDbTables, Map<String, String> queues) {
        this(tables, schemas, cachePrefixes, topics, dynamoDbTables, queues, AwsShadows.NONE);
    }

    /** Shadows of every kind (the parameters: the class comment's). */
    public Shadows(Map<String, String> tables, Map<String, String> schemas, Map<String, String> cachePrefixes,
                   Map<String, String> topics, Map<String, String> dynamoDbTables, Map<String, String> queues,
                   AwsShadows aws) {
        this.aws = aws;
        this.tables = Backports.mapCopy(tables);
        this.schemas = Backports.mapCopy(schemas);
        this.cachePrefixes = Collections.unmodifiableMap(new LinkedHashMap<>(cachePrefixes));
        this.topics = Backports.mapCopy(topics);
        this.dynamoDbTables = Backports.mapCopy(dynamoDbTables);
        this.queues = Backports.mapCopy(queues);
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

    public Map<String, String> dynamoDbTables() {
        return dynamoDbTables;
    }

    public Map<String, String> queues() {
        return queues;
    }

    /** The shadows of SNS topics, S3 locations, EventBridge buses and Kinesis streams. */
    public AwsShadows aws() {
        return aws;
    }

    /**
     * @param node the document's {@code shadows}, or a missing node
     * @throws IllegalArgumentException naming the entry, e.g. {@code shadows[1].kind: must be one of table, schema,
     *                                  cache, topic, dynamodb, queue, sns-topic, s3, event-bus, kinesis-stream}, a
     *                                  production or shadow an AWS kind does not take ({@link AwsShadows#location}),
     *                                  or two shadows for one production target
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
        Map<String, String> dynamoDb = new LinkedHashMap<>();
        Map<String, String> queues = new LinkedHashMap<>();
        Map<String, Map<String, String>> aws = new LinkedHashMap<>();
        for (int i = 0; i < node.size(); i++) {
            JsonNode e = node.get(i);
            String at = "shadows[" + i + "]";
            String production = text(e, "production", at);
            String shadow = text(e, "shadow", at);
            String kind = text(e, "kind", at);
            if (AwsShadows.KINDS.contains(kind)) {
                production = AwsShadows.location(kind, production, at + ".production");
                shadow = AwsShadows.location(kind, shadow, at + ".shadow");
            }
            if (production.equals(shadow)) {
                throw new IllegalArgumentException(at + ": shadow must differ from production '" + production + "'");
            }
            if (kind.equals(AwsShadows.S3) && AwsShadows.within(production, shadow)) {
                throw new IllegalArgumentException(at + ".shadow: must not contain the production location '"
                        + production + "' (its keys would read as shadow keys)");
            }
            Map<String, String> into;
            if (AwsShadows.KINDS.contains(kind)) {
                into = aws.computeIfAbsent(kind, k -> new LinkedHashMap<>());
            } else if (kind.equals("table")) {
                into = tables;
            } else if (kind.equals("schema")) {
                into = schemas;
            } else if (kind.equals("cache")) {
                into = prefixes;
            } else if (kind.equals("topic")) {
                into = topics;
            } else if (kind.equals("dynamodb")) {
                into = dynamoDb;
            } else if (kind.equals("queue")) {
                into = queues;
            } else {
                throw new IllegalArgumentException(at + ".kind: must be one of " + KINDS);
            }
            boolean exact = !kind.equals("table") && !kind.equals("schema");
            String key = exact ? production : production.toLowerCase(Locale.ROOT);
            if (into.putIfAbsent(key, shadow) != null) {
                throw new IllegalArgumentException(at + ": a second shadow for '" + production + "'");
            }
        }
        List<Map.Entry<String, String>> byLength = new ArrayList<>(prefixes.entrySet());
        byLength.sort(Comparator.comparingInt((Map.Entry<String, String> p) -> p.getKey().length()).reversed());
        Map<String, String> longestFirst = new LinkedHashMap<>();
        byLength.forEach(p -> longestFirst.put(p.getKey(), p.getValue()));
        return new Shadows(tables, schemas, longestFirst, topics, dynamoDb, queues, new AwsShadows(aws));
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
                && topics.equals(s.topics) && dynamoDbTables.equals(s.dynamoDbTables) && queues.equals(s.queues)
                && aws.equals(s.aws);
    }

    @Override
    public int hashCode() {
        return Objects.hash(tables, schemas, cachePrefixes, topics, dynamoDbTables, queues, aws);
    }

    @Override
    public String toString() {
        return "Shadows[tables=" + tables + ", schemas=" + schemas + ", cachePrefixes=" + cachePrefixes + ", topics="
                + topics + ", dynamoDbTables=" + dynamoDbTables + ", queues=" + queues + ", aws=" + aws + "]";
    }
}
