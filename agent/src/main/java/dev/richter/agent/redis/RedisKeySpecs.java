package dev.richter.agent.redis;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Where a Redis command's keys are, by the command's own key specification (Redis's {@code COMMAND INFO}: first key,
 * last key, step; and the {@code numkeys} argument of the commands that have one), never by comparing argument
 * values with key names: {@code MSET a b b c} has keys at 1 and 3, and its value {@code b} at 2 is no key. Positions
 * count the command as 0. A command not listed here has no known specification: {@link #positions} answers {@code
 * null}, and a marked one that names keys is refused. Shared by the Redis clients' helpers ({@code
 * dev.richter.agent.jedis.JedisExits}, {@code dev.richter.agent.lettuce.LettuceExits}), injected next to each client
 * with them; no lambdas.
 */
public final class RedisKeySpecs {
    /** {first, last, step}: last {@code -1} is the last argument, {@code -2} the one before it. */
    private static final Map<String, int[]> SPECS = new HashMap<String, int[]>();
    /** Commands whose keys follow a {@code numkeys} argument: {position of numkeys, keys before it}. */
    private static final Map<String, int[]> NUMKEYS = new HashMap<String, int[]>();

    static {
        for (String c : ("GET SET SETNX SETEX PSETEX APPEND INCR DECR INCRBY DECRBY INCRBYFLOAT GETSET GETDEL GETEX"
                + " STRLEN GETRANGE SETRANGE SUBSTR EXPIRE PEXPIRE EXPIREAT PEXPIREAT PERSIST TTL PTTL EXPIRETIME"
                + " PEXPIRETIME TYPE DUMP RESTORE HSET HSETNX HGET HMSET HMGET HDEL HGETALL HKEYS HVALS HLEN HEXISTS"
                + " HINCRBY HINCRBYFLOAT HSTRLEN HSCAN HRANDFIELD HEXPIRE HPEXPIRE HTTL HPERSIST LPUSH RPUSH LPUSHX"
                + " RPUSHX LPOP RPOP LRANGE LLEN LINDEX LSET LREM LTRIM LINSERT LPOS SADD SREM SMEMBERS SISMEMBER"
                + " SMISMEMBER SCARD SPOP SRANDMEMBER SSCAN ZADD ZREM ZINCRBY ZSCORE ZMSCORE ZCARD ZCOUNT ZRANGE"
                + " ZRANGEBYSCORE ZREVRANGE ZREVRANGEBYSCORE ZRANK ZREVRANK ZREMRANGEBYRANK ZREMRANGEBYSCORE ZSCAN"
                + " ZLEXCOUNT ZRANGEBYLEX ZREVRANGEBYLEX ZREMRANGEBYLEX ZPOPMIN ZPOPMAX ZRANDMEMBER SETBIT GETBIT"
                + " BITCOUNT BITPOS BITFIELD BITFIELD_RO PFADD XADD XLEN XRANGE XREVRANGE XDEL XTRIM XACK XCLAIM"
                + " XAUTOCLAIM XPENDING XSETID GEOADD GEOPOS GEODIST GEOHASH GEORADIUS_RO GEORADIUSBYMEMBER_RO"
                + " GEOSEARCH SORT_RO").split(" ")) {
            SPECS.put(c, new int[] {1, 1, 1});
        }
        for (String c : "DEL UNLINK EXISTS TOUCH MGET WATCH SINTER SUNION SDIFF SINTERSTORE SUNIONSTORE SDIFFSTORE PFCOUNT PFMERGE"
                .split(" ")) {
            SPECS.put(c, new int[] {1, -1, 1});
        }
        for (String c : "MSET MSETNX".split(" ")) {
            SPECS.put(c, new int[] {1, -1, 2});
        }
        for (String c : "RENAME RENAMENX SMOVE RPOPLPUSH LMOVE COPY GEOSEARCHSTORE ZRANGESTORE".split(" ")) {
            SPECS.put(c, new int[] {1, 2, 1});
        }
        for (String c : "BLPOP BRPOP BZPOPMIN BZPOPMAX".split(" ")) {
            SPECS.put(c, new int[] {1, -2, 1});
        }
        for (String c : "BRPOPLPUSH BLMOVE".split(" ")) {
            SPECS.put(c, new int[] {1, 2, 1});
        }
        for (String c : "EVAL EVALSHA EVAL_RO EVALSHA_RO FCALL FCALL_RO".split(" ")) {
            NUMKEYS.put(c, new int[] {2, 0});
        }
        for (String c : "ZUNIONSTORE ZINTERSTORE ZDIFFSTORE".split(" ")) {
            NUMKEYS.put(c, new int[] {2, 1});
        }
        for (String c : "ZUNION ZINTER ZDIFF SINTERCARD ZINTERCARD LMPOP ZMPOP".split(" ")) {
            NUMKEYS.put(c, new int[] {1, 0});
        }
        for (String c : "BLMPOP BZMPOP".split(" ")) {
            NUMKEYS.put(c, new int[] {2, 0});
        }
    }

    private RedisKeySpecs() {}

    /**
     * The positions of {@code command}'s keys among {@code args} (the command itself at 0), in order.
     *
     * @param command the command, upper case
     * @param args    every argument as sent, the command first
     * @return the positions; {@code null} when the command's key specification is not known here, or the arguments
     *     do not fit it (a {@code numkeys} that is no number or runs past the end)
     */
    public static int[] positions(String command, List<byte[]> args) {
        int n = args.size();
        int[] spec = SPECS.get(command);
        if (spec != null) {
            int last = spec[1] >= 0 ? spec[1] : n + spec[1];
            List<Integer> out = new ArrayList<Integer>();
            for (int i = spec[0]; i <= last && i < n; i += spec[2]) {
                out.add(i);
            }
            return toArray(out);
        }
        int[] numkeys = NUMKEYS.get(command);
        if (numkeys == null || numkeys[0] >= n) {
            return null;
        }
        int count;
        try {
            count = Integer.parseInt(new String(args.get(numkeys[0]), StandardCharsets.US_ASCII).trim());
        } catch (NumberFormatException e) {
            return null;
        }
        if (count < 0 || numkeys[0] + count > n - 1) {
            return null;
        }
        List<Integer> out = new ArrayList<Integer>();
        for (int i = 1; i <= numkeys[1]; i++) {
            out.add(i);
        }
        for (int i = numkeys[0] + 1; i <= numkeys[0] + count; i++) {
            out.add(i);
        }
        return toArray(out);
    }

    /** True when the bytes at {@code positions} of {@code args} are {@code keys}, in order and all of them. */
    public static boolean match(List<byte[]> args, int[] positions, List<byte[]> keys) {
        if (positions.length != keys.size()) {
            return false;
        }
        for (int i = 0; i < positions.length; i++) {
            if (!Arrays.equals(args.get(positions[i]), keys.get(i))) {
                return false;
            }
        }
        return true;
    }

    private static int[] toArray(List<Integer> list) {
        int[] out = new int[list.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = list.get(i);
        }
        return out;
    }
}
