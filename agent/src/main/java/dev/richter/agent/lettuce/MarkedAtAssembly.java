package dev.richter.agent.lettuce;

import io.lettuce.core.protocol.RedisCommand;
import java.util.function.Supplier;

/**
 * The command supplier of a reactive Lettuce call made in a marked context ({@code AbstractRedisReactiveCommands
 * .createMono} or {@code createFlux}, on the application's thread): each command it supplies, at subscription, is a
 * {@link MarkedCommand}, so it is decided as marked when it is sent even where the marker is not current (a
 * subscription on another thread or event loop). Injected next to Lettuce; no lambdas.
 *
 * @param <K> key type
 * @param <V> value type
 * @param <T> output type
 */
public final class MarkedAtAssembly<K, V, T> implements Supplier<RedisCommand<K, V, T>> {
    private final Supplier<RedisCommand<K, V, T>> commands;

    public MarkedAtAssembly(Supplier<RedisCommand<K, V, T>> commands) {
        this.commands = commands;
    }

    @Override
    public RedisCommand<K, V, T> get() {
        RedisCommand<K, V, T> command = commands.get();
        return command == null ? null : new MarkedCommand<K, V, T>(command);
    }
}
