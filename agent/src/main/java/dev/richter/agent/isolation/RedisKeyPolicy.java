package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The isolation's rule for one key of a marked Redis command ({@code kind: cache}, production key prefix → shadow key
 * prefix, e.g. {@code stock:} → {@code shadow:stock:}):
 * <ol>
 *   <li>a key that already has a shadow prefix is used as it is;</li>
 *   <li>a key with a production prefix (the longest that matches) gets the shadow prefix instead, read or write;</li>
 *   <li>a key no prefix maps is used as it is by a read ({@link #READS}: reference data), and refused for any other
 *       command;</li>
 *   <li>a command without a key passes when it only reads or sets up the connection ({@link #KEYLESS}), and is
 *       refused otherwise ({@code FLUSHALL}, {@code SCRIPT FLUSH}...).</li>
 * </ol>
 * In {@link IsolationMode#REPORT} a refusal becomes a {@link ExitDecision.WouldRefuse} and the command is sent.
 */
public final class RedisKeyPolicy {
    /** Commands that only read their keys. */
    static final Set<String> READS = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            "GET", "MGET", "GETRANGE", "STRLEN", "EXISTS", "TYPE", "TTL", "PTTL",
            "EXPIRETIME", "PEXPIRETIME", "HGET", "HMGET", "HGETALL", "HKEYS", "HVALS", "HLEN", "HEXISTS", "HSTRLEN",
            "HSCAN", "LRANGE", "LLEN", "LINDEX", "LPOS", "SMEMBERS", "SISMEMBER", "SMISMEMBER", "SCARD", "SRANDMEMBER",
            "SSCAN", "SINTER", "SUNION", "SDIFF", "SINTERCARD", "ZRANGE", "ZRANGEBYSCORE", "ZRANGEBYLEX", "ZREVRANGE",
            "ZREVRANGEBYSCORE", "ZSCORE", "ZMSCORE", "ZCARD", "ZCOUNT", "ZLEXCOUNT", "ZRANK", "ZREVRANK", "ZSCAN",
            "GETBIT", "BITCOUNT", "BITPOS", "PFCOUNT", "XRANGE", "XREVRANGE", "XLEN", "XREAD", "GEOPOS", "GEODIST",
            "GEOHASH", "GEOSEARCH", "DUMP", "OBJECT", "MEMORY", "WATCH", "TOUCH")));
    /** Commands without a key that marked traffic may send. */
    static final Set<String> KEYLESS = Collections.unmodifiableSet(new HashSet<>(Arrays.asList(
            "PING", "ECHO", "AUTH", "HELLO", "SELECT", "CLIENT", "INFO", "TIME",
            "COMMAND", "QUIT", "RESET", "READONLY", "READWRITE", "DBSIZE", "KEYS", "SCAN", "MULTI", "EXEC", "DISCARD",
            "UNWATCH", "ROLE", "LASTSAVE", "RANDOMKEY")));

    private RedisKeyPolicy() {}

    /**
     * @param command the command, upper case
     * @param key     the key; {@code ""} for a command without keys
     */
    public static ShadowDecision decide(String command, String key, Shadows shadows, IsolationMode mode) {
        if (key.isEmpty()) {
            return KEYLESS.contains(command) ? ShadowDecision.UNTOUCHED
                    : refuse(command, "a marked " + command + " names no key to shadow", mode);
        }
        for (String shadowPrefix : shadows.cachePrefixes().values()) {
            if (key.startsWith(shadowPrefix)) {
                return new ShadowDecision(Optional.empty(), key, ExitDecision.PASS);
            }
        }
        for (Map.Entry<String, String> p : shadows.cachePrefixes().entrySet()) {
            if (key.startsWith(p.getKey())) {
                String shadow = p.getValue() + key.substring(p.getKey().length());
                return ShadowDecision.shadow(shadow, shadow);
            }
        }
        if (READS.contains(command)) {
            return ShadowDecision.UNTOUCHED;
        }
        return refuse(command + " " + key, "a marked write to key '" + key
                + "', which no shadow prefix (kind cache) maps", mode);
    }

    private static ShadowDecision refuse(String exit, String reason, IsolationMode mode) {
        return mode == IsolationMode.ENFORCE ? ShadowDecision.refuse("redis " + exit, reason)
                : new ShadowDecision(Optional.empty(), "", new ExitDecision.WouldRefuse("redis " + exit, reason));
    }
}
