package dev.richter.links.datastore;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The command and keys of a Redis statement as the OpenTelemetry agent records it ({@code db.statement} /
 * {@code db.query.text}: the command and its arguments, values sanitized to {@code ?}, e.g. {@code SET stock:A1 ?}).
 *
 * <p>Keys (Redis command reference, "key specifications"): every argument of {@value #ALL_KEYS_DOC}; every other
 * argument of {@code MSET}, {@code MSETNX}; none for {@link #CONTROL_COMMANDS} and for the keyless writes
 * ({@code FLUSHDB}, {@code FLUSHALL}, {@code SCRIPT}, {@code FUNCTION}, {@code CONFIG}, {@code PUBLISH}, ...); else
 * the first argument.
 *
 * <p>Reads: the commands of {@link #READ_COMMANDS}; any other command counts as a write (nothing proves it does not
 * write).
 */
public final class RedisCommands {
    static final String ALL_KEYS_DOC = "DEL, UNLINK, EXISTS, MGET, TOUCH, WATCH";
    private static final Set<String> ALL_KEYS = Set.of("DEL", "UNLINK", "EXISTS", "MGET", "TOUCH", "WATCH");
    private static final Set<String> PAIRS = Set.of("MSET", "MSETNX");
    /** Connection, transaction and server commands that touch no data. */
    public static final Set<String> CONTROL_COMMANDS = Set.of("PING", "INFO", "AUTH", "SELECT", "HELLO", "CLIENT",
            "QUIT", "ECHO", "TIME", "DBSIZE", "COMMAND", "MULTI", "EXEC", "DISCARD", "UNWATCH", "RESET", "SCAN", "KEYS",
            "RANDOMKEY", "SUBSCRIBE", "PSUBSCRIBE", "READONLY", "READWRITE");
    /** Commands without a key that do change data (the whole database, scripts, a channel). */
    private static final Set<String> KEYLESS_WRITES = Set.of("FLUSHDB", "FLUSHALL", "SCRIPT", "FUNCTION", "CONFIG",
            "PUBLISH", "SWAPDB", "RESTORE-ASKING");
    /** Commands that only read. */
    public static final Set<String> READ_COMMANDS = Set.of("GET", "MGET", "EXISTS", "STRLEN", "GETRANGE", "TTL",
            "PTTL", "TYPE", "HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "LRANGE", "LLEN", "LINDEX",
            "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "ZRANGE", "ZRANGEBYSCORE", "ZREVRANGE", "ZSCORE", "ZCARD",
            "ZRANK", "ZCOUNT", "XRANGE", "XREVRANGE", "XLEN", "GETBIT", "BITCOUNT", "PFCOUNT", "SCAN", "KEYS",
            "DBSIZE", "PING", "INFO", "ECHO", "TIME", "TOUCH", "WATCH");

    private RedisCommands() {}

    /**
     * One statement.
     *
     * @param command upper case, e.g. {@code SET}; {@code ""} for a blank statement
     * @param keys the keys it names, in order
     */
    public record Command(String command, List<String> keys) {
        public Command {
            keys = List.copyOf(keys);
        }

        /** True unless {@link #command} is one of {@link #READ_COMMANDS} or {@link #CONTROL_COMMANDS}. */
        public boolean writes() {
            return !READ_COMMANDS.contains(command) && !CONTROL_COMMANDS.contains(command);
        }

        /** True for {@link #CONTROL_COMMANDS}: the command touches no data. */
        public boolean control() {
            return CONTROL_COMMANDS.contains(command);
        }
    }

    /** Reads {@code statement}: whitespace-separated command and arguments; {@code ?} is never a key. */
    public static Command parse(String statement) {
        String[] words = statement.strip().split("\\s+");
        if (words.length == 0 || words[0].isEmpty()) {
            return new Command("", List.of());
        }
        String command = words[0].toUpperCase(Locale.ROOT);
        List<String> keys = new ArrayList<>();
        if (!CONTROL_COMMANDS.contains(command) && !KEYLESS_WRITES.contains(command)) {
            for (int i = 1; i < words.length; i++) {
                boolean key = ALL_KEYS.contains(command) || (PAIRS.contains(command) ? i % 2 == 1 : i == 1);
                if (key && !words[i].equals("?")) {
                    keys.add(words[i]);
                }
            }
        }
        return new Command(command, keys);
    }

    /** The key space of {@code key}: up to and including its last {@code ':'} ({@code stock:A1} → {@code stock:}),
     *  the key itself when it has none. */
    public static String keySpace(String key) {
        int colon = key.lastIndexOf(':');
        return colon < 0 ? key : key.substring(0, colon + 1);
    }
}
