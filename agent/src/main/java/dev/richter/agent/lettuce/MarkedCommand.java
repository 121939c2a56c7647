package dev.richter.agent.lettuce;

import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;

/**
 * A Lettuce command built in a marked context by the reactive API ({@link MarkedAtAssembly}): the tag that makes
 * {@link LettuceExits} decide it as marked when it is sent, whatever context is current then. Wraps the command and
 * changes nothing of it (Lettuce wraps its commands the same way: {@code AsyncCommand}, {@code TracedCommand}); found
 * by {@code CommandWrapper.unwrap(command, MarkedCommand.class)}. Injected next to Lettuce.
 *
 * @param <K> key type
 * @param <V> value type
 * @param <T> output type
 */
public final class MarkedCommand<K, V, T> extends CommandWrapper<K, V, T> {
    public MarkedCommand(RedisCommand<K, V, T> command) {
        super(command);
    }
}
