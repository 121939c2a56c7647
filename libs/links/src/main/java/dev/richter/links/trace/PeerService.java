package dev.richter.links.trace;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Picks the called peer of a CLIENT/PRODUCER span from OpenTelemetry semantic-convention attributes.
 *
 * <p>{@code peer.service} wins when set. A SQL database call (a {@code db.system.name} / {@code db.system} that is
 * not a key-value cache) is named by what it reaches, {@link #database}: {@code system://host[:port]/database},
 * e.g. {@code h2://127.0.0.1:18092/shop}, so two databases on one host, or a database and an HTTP service on it, are
 * different peers. Otherwise the first present of {@code server.address}, {@code net.peer.name}, {@code db.system},
 * {@code messaging.system}, {@code rpc.service}.
 */
public final class PeerService {
    private static final String[] KEYS = {
        "server.address", "net.peer.name", "db.system", "messaging.system", "rpc.service"
    };
    /** {@code db.system} values of key-value caches; mirrors {@code DatastoreCall.CACHE_SYSTEMS}. */
    private static final Set<String> CACHE_SYSTEMS = Set.of("redis", "memcached", "valkey", "hazelcast", "geode",
            "coherence");
    /**
     * {@code db.system.name} values of the stable database conventions (semconv 1.33) that renamed the older
     * {@code db.system} value; mapped back so one database has one name whichever convention the agent writes.
     */
    private static final Map<String, String> STABLE_SYSTEM_NAMES = Map.of("h2database", "h2",
            "microsoft.sql_server", "mssql", "oracle.db", "oracle", "ibm.db2", "db2");
    /**
     * Parts of a database name that differ per JVM or per connection: a UUID (Spring Boot's
     * {@code generate-unique-name} in-memory database {@code jdbc:h2:mem:<uuid>}) or a run of 16 or more hex digits.
     */
    private static final Pattern RANDOM_PART = Pattern.compile(
            "(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{16,}");

    private PeerService() {}

    /**
     * The called peer named by a span's {@code attributes} (see the class comment).
     *
     * @return the peer, {@code ""} when the attributes name none
     */
    public static String of(Map<String, String> attributes) {
        if (attributes.isEmpty()) {
            return "";
        }
        String named = attributes.getOrDefault("peer.service", "");
        if (!named.isBlank()) {
            return named;
        }
        String db = database(attributes);
        if (!db.isEmpty()) {
            return db;
        }
        for (String key : KEYS) {
            String v = attributes.get(key);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return "";
    }

    /**
     * The stable name of the SQL database a span calls: {@code system://host[:port]/database}, from
     * {@code db.system.name} (or {@code db.system}, the old convention; stable names mapped back, e.g.
     * {@code h2database} to {@code h2}), {@code server.address} and {@code server.port} (or {@code net.peer.name} and
     * {@code net.peer.port}), {@code db.namespace} (or {@code db.name}). An embedded database has no host:
     * {@code h2:///mem:shop}. Per-JVM random parts of the database name (a UUID, 16+ hex digits) become {@code *}.
     * Never read: {@code db.connection_string}, {@code db.user}, {@code network.peer.*} (a connection's socket).
     *
     * @return the name, or {@code ""} when the span is no SQL database call (no database system, or a cache)
     */
    public static String database(Map<String, String> attributes) {
        String system = first(attributes, "db.system.name", "db.system").toLowerCase(Locale.ROOT);
        if (system.isEmpty() || CACHE_SYSTEMS.contains(system)) {
            return "";
        }
        system = STABLE_SYSTEM_NAMES.getOrDefault(system, system);
        String host = first(attributes, "server.address", "net.peer.name");
        String port = first(attributes, "server.port", "net.peer.port");
        String authority = host.isEmpty() ? "" : port.isEmpty() ? host : host + ":" + port;
        String database = RANDOM_PART.matcher(first(attributes, "db.namespace", "db.name")).replaceAll("*");
        return system + "://" + authority + "/" + database;
    }

    private static String first(Map<String, String> a, String preferred, String old) {
        String v = a.getOrDefault(preferred, "").strip();
        return v.isEmpty() ? a.getOrDefault(old, "").strip() : v;
    }
}
