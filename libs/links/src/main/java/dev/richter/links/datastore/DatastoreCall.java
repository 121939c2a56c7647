package dev.richter.links.datastore;

import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What one CLIENT or PRODUCER span asked of a database, a cache or a broker, read from the OpenTelemetry semantic
 * conventions the agent writes: the old database attributes (agent 2.22's default: {@code db.system},
 * {@code db.name}, {@code db.statement}, {@code db.operation}, {@code db.sql.table}) and the stable ones
 * ({@code otel.semconv-stability.opt-in=database}: {@code db.system.name}, {@code db.namespace},
 * {@code db.query.text}, {@code db.operation.name}, {@code db.collection.name}), the new one first when both are
 * present; messaging: {@code messaging.system}, {@code messaging.destination.name}, {@code messaging.operation}
 * (or {@code messaging.operation.type}).
 *
 * <p>These attributes name what the application asked for; Richter's agent extension records where it sent a marked
 * call instead ({@value #SHADOW_TARGET}), or that it refused it ({@value #REFUSED}) or would have in report mode
 * ({@value #WOULD_REFUSE}).
 *
 * <p>Targets: the tables a database call's statement names ({@link SqlTargets}: every table it writes, at any
 * depth), with its table attribute added when the statement does not name it; the table attribute alone when no
 * statement was recorded; a Redis call's keys ({@link RedisCommands}); a DynamoDB call's tables ({@code db.system}
 * {@code dynamodb}: the AWS SDK instrumentation's {@code aws.dynamodb.table_names}, its operation {@code db.operation}
 * or {@code rpc.method}; OpenTelemetry's semantic conventions for AWS SDK); a messaging call's destination. A reader never
 * throws out of {@link #of}: a span it cannot read is a call with a {@code problem}, which a check FAILs, naming it.
 *
 * @param kind {@value #TABLE}, {@value #CACHE}, {@value #DYNAMODB} or {@value #TOPIC} (the {@code kind}s of a
 *     service's datastores)
 * @param system the database, cache or messaging system, e.g. {@code h2}, {@code postgresql}, {@code redis},
 *     {@code kafka}
 * @param namespace the database ({@code db.name} / {@code db.namespace}), {@code ""} when not recorded
 * @param operation upper case: the SQL verb, the Redis command, or the messaging operation ({@code PUBLISH},
 *     {@code SEND}, ...); {@code ""} when neither recorded nor readable from the statement
 * @param write true when the call may change data (SQL writes and DDL, Redis write commands, publish/send); unknown
 *     operations count as writes
 * @param control true when the call touches no data (SQL {@code SET}, {@code COMMIT}...; Redis {@code CLIENT},
 *     {@code PING}...)
 * @param written the targets it writes, as named (table, Redis key, topic)
 * @param read the targets it only reads
 * @param statement the recorded statement, {@code ""} when none
 * @param problem why the targets could not be read or do not show all the call does ({@code ""} when they do), e.g.
 *     the statement does not parse, or calls a procedure
 */
public record DatastoreCall(String kind, String system, String namespace, String operation, boolean write,
                            boolean control, List<String> written, List<String> read, String statement,
                            String problem) {
    /** Kind of a database table. */
    public static final String TABLE = "table";
    /** Kind of a cache key space (a key prefix). */
    public static final String CACHE = "cache";
    /** Kind of a DynamoDB table. */
    public static final String DYNAMODB = "dynamodb";
    /** DynamoDB operations that only read (the DynamoDB API reference); any other operation counts as a write. */
    static final Set<String> DYNAMODB_READS = Set.of("GETITEM", "BATCHGETITEM", "QUERY", "SCAN", "TRANSACTGETITEMS",
            "DESCRIBETABLE", "LISTTABLES", "DESCRIBETIMETOLIVE", "DESCRIBECONTINUOUSBACKUPS", "LISTTAGSOFRESOURCE");
    /** Kind of a messaging destination. */
    public static final String TOPIC = "topic";
    /** Span attribute: the shadow Richter's agent extension sent a marked call to. */
    public static final String SHADOW_TARGET = "richter.shadow.target";
    /** Span attribute: the extension refused the marked call (nothing was sent), with its reason. */
    public static final String REFUSED = "richter.refused";
    /** Span attribute: the extension would have refused it, but its report mode let it through. */
    public static final String WOULD_REFUSE = "richter.would_refuse";
    /** {@code db.system} values of key-value caches (OpenTelemetry semantic conventions). */
    public static final Set<String> CACHE_SYSTEMS = Set.of("redis", "memcached", "valkey", "hazelcast", "geode",
            "coherence");

    public DatastoreCall {
        written = List.copyOf(written);
        read = List.copyOf(read);
    }

    /**
     * True for a SQL schema or privilege statement ({@link SqlTargets#schema}, e.g. {@code CREATE TABLE} at boot):
     * it is no exit and discovers no datastore.
     */
    public boolean schema() {
        return TABLE.equals(kind) && SqlTargets.schema(operation.isEmpty() ? SqlTargets.verb(statement) : operation);
    }

    /** Every target, written ones first. */
    public List<String> targets() {
        List<String> all = new ArrayList<>(written);
        all.addAll(read);
        return all;
    }

    /**
     * The datastore call {@code span} records, if it is one: a CLIENT or PRODUCER span with a database or messaging
     * system attribute.
     */
    public static Optional<DatastoreCall> of(Span span) {
        if (!span.kind().makesCall()) {
            return Optional.empty();
        }
        try {
            return read(span);
        } catch (RuntimeException e) {
            // a reader's defect on a shape it does not know is a call whose targets are unknown, never a lost check
            Map<String, String> a = span.attributes();
            return Optional.of(new DatastoreCall(TABLE, first(a, "db.system.name", "db.system"), "", "", true, false,
                    List.of(), List.of(), first(a, "db.query.text", "db.statement"), "its targets cannot be read ("
                    + e + ")"));
        }
    }

    private static Optional<DatastoreCall> read(Span span) {
        Map<String, String> a = span.attributes();
        String dbSystem = first(a, "db.system.name", "db.system");
        if (!dbSystem.isEmpty()) {
            String statement = first(a, "db.query.text", "db.statement");
            String operation = first(a, "db.operation.name", "db.operation").toUpperCase(Locale.ROOT);
            String namespace = first(a, "db.namespace", "db.name");
            if (CACHE_SYSTEMS.contains(dbSystem.toLowerCase(Locale.ROOT))) {
                return Optional.of(cache(dbSystem, namespace, operation, statement));
            }
            if (dbSystem.equalsIgnoreCase("dynamodb") || dbSystem.equalsIgnoreCase("aws.dynamodb")) {
                String op = operation.isEmpty() ? a.getOrDefault("rpc.method", "").strip().toUpperCase(Locale.ROOT)
                        : operation;
                return Optional.of(dynamoDb(dbSystem, op, tableNames(first(a, "aws.dynamodb.table_names",
                        "db.collection.name"))));
            }
            return Optional.of(table(dbSystem, namespace, operation, first(a, "db.collection.name", "db.sql.table"),
                    statement));
        }
        String messaging = a.getOrDefault("messaging.system", "");
        if (!messaging.isEmpty()) {
            String destination = a.getOrDefault("messaging.destination.name", "");
            String operation = first(a, "messaging.operation.type", "messaging.operation").toUpperCase(Locale.ROOT);
            boolean write = span.kind() == dev.richter.links.trace.SpanKind.PRODUCER
                    || !Set.of("RECEIVE", "PROCESS", "SETTLE", "DELIVER").contains(operation);
            List<String> target = destination.isEmpty() ? List.of() : List.of(destination);
            return Optional.of(new DatastoreCall(TOPIC, messaging, "", operation, write, false,
                    write ? target : List.of(), write ? List.of() : target, "",
                    destination.isEmpty() ? "no messaging.destination.name" : ""));
        }
        return Optional.empty();
    }

    private static DatastoreCall table(String system, String namespace, String operation, String table,
                                       String statement) {
        if (!table.isEmpty() && statement.isBlank()) {
            String op = operation;
            boolean write = SqlTargets.writes(op);
            String name = SqlTargets.unquote(table);
            return new DatastoreCall(TABLE, system, namespace, op, write, false, write ? List.of(name) : List.of(),
                    write ? List.of() : List.of(name), statement, "");
        }
        if (statement.isBlank()) {
            boolean control = SqlTargets.CONTROL_OPERATIONS.contains(operation);
            return new DatastoreCall(TABLE, system, namespace, operation, !control && SqlTargets.writes(operation),
                    control, List.of(), List.of(), "", control ? "" : "no table attribute and no statement recorded");
        }
        String verb = operation.isEmpty() ? SqlTargets.verb(statement) : operation;
        if (SqlTargets.CONTROL_OPERATIONS.contains(SqlTargets.verb(statement))) {
            return new DatastoreCall(TABLE, system, namespace, verb, false, true, List.of(), List.of(), statement, "");
        }
        try {
            SqlTargets.Tables p = SqlTargets.parse(statement);
            List<String> written = new ArrayList<>(p.written());
            List<String> read = new ArrayList<>(p.read());
            String named = SqlTargets.unquote(table);
            if (!named.isEmpty() && !written.contains(named) && !read.contains(named)) {
                (SqlTargets.writes(p.operation()) ? written : read).add(named);
            }
            return new DatastoreCall(TABLE, system, namespace, p.operation(),
                    SqlTargets.writes(p.operation()) || !written.isEmpty(), false, written, read, statement,
                    p.unknown());
        } catch (IllegalArgumentException e) {
            // what does not parse may write whatever its verb (WITH x AS (DELETE ...) ...); the table attribute names
            // a target it has, not all of them
            String named = SqlTargets.unquote(table);
            return new DatastoreCall(TABLE, system, namespace, verb, true, false,
                    named.isEmpty() ? List.of() : List.of(named), List.of(), statement, e.getMessage());
        }
    }

    private static DatastoreCall cache(String system, String namespace, String operation, String statement) {
        RedisCommands.Command c = RedisCommands.parse(statement);
        String op = c.command().isEmpty() ? operation : c.command();
        RedisCommands.Command command = new RedisCommands.Command(op, c.keys());
        String problem = command.keys().isEmpty() && !command.control()
                ? (statement.isBlank() ? "no statement recorded: the key is unknown" : "names no key") : "";
        return new DatastoreCall(CACHE, system, namespace, op, command.writes(), command.control(),
                command.writes() ? command.keys() : List.of(), command.writes() ? List.of() : command.keys(), statement,
                problem);
    }

    private static DatastoreCall dynamoDb(String system, String operation, List<String> tables) {
        boolean write = dynamoDbWrites(operation);
        boolean control = operation.equals("LISTTABLES");
        String problem = tables.isEmpty() && !control ? "no aws.dynamodb.table_names recorded: the table is unknown" : "";
        return new DatastoreCall(DYNAMODB, system, "", operation, write, control, write ? tables : List.of(),
                write ? List.of() : tables, "", problem);
    }

    /** True unless {@code operation} (any case) is a DynamoDB operation that only reads ({@link #DYNAMODB_READS}). */
    static boolean dynamoDbWrites(String operation) {
        return !DYNAMODB_READS.contains(operation.toUpperCase(Locale.ROOT));
    }

    /**
     * The table names of an {@code aws.dynamodb.table_names} value as a span source writes it: an OTLP array
     * ({@code {"values":[{"stringValue":"orders"}]}}, what {@code OtlpParser} keeps of an {@code arrayValue}), a JSON
     * array, or a comma-separated list; a table's ARN ({@code arn:aws:dynamodb:<region>:<account>:table/<name>}) is
     * its name. Empty for an empty value; a value that starts as JSON but does not parse throws, so {@link #of} makes
     * the call one with a {@code problem} (its tables unknown).
     */
    static List<String> tableNames(String value) {
        String v = value.strip();
        List<String> names = new ArrayList<>();
        if (v.startsWith("{") || v.startsWith("[")) {
            com.fasterxml.jackson.databind.JsonNode tree;
            try {
                tree = dev.richter.common.Json.MAPPER.readTree(v);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalArgumentException("aws.dynamodb.table_names is not JSON: " + e.getOriginalMessage(), e);
            }
            // an OTLP AnyValue array ({"values": [{"stringValue": ...}]}) or a plain JSON array of names
            for (com.fasterxml.jackson.databind.JsonNode element : tree.isArray() ? tree : tree.path("values")) {
                String name = element.isTextual() ? element.asText() : element.path("stringValue").asText("");
                if (!name.isEmpty()) {
                    names.add(name);
                }
            }
        } else {
            for (String s : v.split(",")) {
                if (!s.isBlank()) {
                    names.add(s.strip());
                }
            }
        }
        names.replaceAll(n -> n.startsWith("arn:") && n.contains(":table/") ? n.substring(n.indexOf(":table/") + 7) : n);
        return names;
    }

    private static String first(Map<String, String> a, String preferred, String old) {
        String v = a.getOrDefault(preferred, "").strip();
        return v.isEmpty() ? a.getOrDefault(old, "").strip() : v;
    }
}
