package io.lettuce.core.protocol;

import io.lettuce.core.codec.ByteArrayCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Richter's reader of a Lettuce {@link CommandArgs}: each argument as the bytes sent, which of them Lettuce holds as keys
 * ({@code CommandArgs.addKey}), and the replacement of a key by its shadow. In Lettuce's own package because the
 * arguments ({@code singularArguments}, {@code KeyArgument}) are package-private there (the OpenTelemetry agent reads
 * them the same way, {@code io.lettuce.core.protocol.OtelCommandArgsUtil}); written against Lettuce 6.6.0, injected
 * next to Lettuce with {@code dev.richter.agent.lettuce.LettuceExits}. On a Lettuce whose internals differ, each method
 * throws a {@link LinkageError} (or a {@link RuntimeException} on a malformed encoding), which the caller takes as
 * "the keys cannot be read" and refuses a marked command. No lambdas.
 */
public final class RichterCommandArgs {
    private RichterCommandArgs() {}

    /**
     * Every argument of {@code args} as Lettuce encodes it for the wire (one RESP bulk string each), without the
     * command's name: index 0 is the first argument.
     *
     * @throws IllegalStateException when an argument does not encode as one bulk string
     */
    public static List<byte[]> encoded(CommandArgs<?, ?> args) {
        List<byte[]> out = new ArrayList<byte[]>(args.singularArguments.size());
        ByteBuf buf = Unpooled.buffer(64);
        try {
            for (CommandArgs.SingularArgument argument : args.singularArguments) {
                buf.clear();
                argument.encode(buf);
                out.add(bulkString(buf));
            }
        } finally {
            buf.release();
        }
        return out;
    }

    /**
     * The positions of the arguments Lettuce holds as keys, counting the command's name as 0 (the first argument is
     * 1), in order: the positions {@code dev.richter.agent.redis.RedisKeySpecs} answers for a command.
     */
    public static int[] keyPositions(CommandArgs<?, ?> args) {
        List<CommandArgs.SingularArgument> all = args.singularArguments;
        int n = 0;
        for (CommandArgs.SingularArgument argument : all) {
            if (argument instanceof CommandArgs.KeyArgument) {
                n++;
            }
        }
        int[] out = new int[n];
        int k = 0;
        for (int i = 0; i < all.size(); i++) {
            if (all.get(i) instanceof CommandArgs.KeyArgument) {
                out[k++] = i + 1;
            }
        }
        return out;
    }

    /**
     * Replaces the key at {@code position} (as {@link #keyPositions}) by {@code key}, sent as these bytes whatever the
     * connection's codec (a key argument of {@link ByteArrayCodec}, so that cluster slot routing still reads it as the
     * key).
     *
     * @throws IllegalArgumentException when the argument at {@code position} is not a key
     */
    public static void replaceKey(CommandArgs<?, ?> args, int position, byte[] key) {
        if (!(args.singularArguments.get(position - 1) instanceof CommandArgs.KeyArgument)) {
            throw new IllegalArgumentException("argument " + position + " is not a key");
        }
        args.singularArguments.set(position - 1, CommandArgs.KeyArgument.of(key, ByteArrayCodec.INSTANCE));
    }

    /** The payload of the one RESP bulk string in {@code buf}: {@code $<length>\r\n<bytes>\r\n}. */
    private static byte[] bulkString(ByteBuf buf) {
        int end = buf.writerIndex();
        if (end < 4 || buf.getByte(0) != '$') {
            throw new IllegalStateException("an argument that is no bulk string: "
                    + buf.toString(StandardCharsets.UTF_8));
        }
        int i = 1;
        int length = 0;
        while (i < end && buf.getByte(i) != '\r') {
            byte digit = buf.getByte(i++);
            if (digit < '0' || digit > '9') {
                throw new IllegalStateException("a bulk string's length that is no number");
            }
            length = length * 10 + (digit - '0');
        }
        int start = i + 2;
        if (start + length + 2 != end) {
            throw new IllegalStateException("an argument that encodes as more or less than one bulk string");
        }
        byte[] out = new byte[length];
        buf.getBytes(start, out);
        return out;
    }
}
