package io.lettuce.core;

import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.Command;
import java.util.List;
import java.util.Map;

/**
 * Commands as Lettuce's own (package-private) {@code RedisCommandBuilder} builds them for its APIs, for {@code
 * LettuceExitsTest}: string keys and values, UTF-8.
 */
public final class RedisCommandBuilderAccess {
    private static final RedisCommandBuilder<String, String> BUILDER = new RedisCommandBuilder<>(StringCodec.UTF8);

    private RedisCommandBuilderAccess() {}

    public static Command<String, String, String> set(String key, String value) {
        return BUILDER.set(key, value);
    }

    public static Command<String, String, String> mset(Map<String, String> map) {
        return BUILDER.mset(map);
    }

    public static Command<String, String, Long> del(String... keys) {
        return BUILDER.del(keys);
    }

    public static Command<String, String, List<String>> mget(String... keys) {
        return BUILDER.mget(keys);
    }
}
