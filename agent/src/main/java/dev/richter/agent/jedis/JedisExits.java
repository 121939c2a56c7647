package dev.richter.agent.jedis;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.redis.RedisKeySpecs;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import redis.clients.jedis.CommandArguments;
import redis.clients.jedis.args.Rawable;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The isolation at Jedis ({@code redis.clients.jedis.Connection.sendCommand(CommandArguments)}, the path of every
 * command of Jedis 7, tested with 7.0.0, pooled, pipelined or not): each key of a marked command, located by the
 * command's key specification ({@link RedisKeySpecs}) and checked against Jedis's own {@code
 * CommandArguments.getKeys()} (a command whose keys cannot be located so is refused),
 * is decided by the {@link IsolationGuard} ({@code decideRedis}, {@code kind: cache}); the command is sent with its
 * shadow keys, or refused with Jedis's own {@link JedisDataException} naming the key. Unmarked commands are not looked
 * at. Injected by the agent as a helper next to Jedis; no lambdas.
 */
public final class JedisExits {
    private JedisExits() {}

    /**
     * @return {@code null}: send as it is; a {@code CommandArguments}: send that instead (the shadow keys); a {@code
     *     JedisDataException}: throw it, nothing is sent
     */
    public static Object beforeSend(CommandArguments args) {
        IsolationGuard guard = IsolationBridge.guard();
        if (args == null || !guard.marked()) {
            return null;
        }
        try {
            return decide(guard, args);
        } catch (RuntimeException | LinkageError e) {
            // e.g. a Jedis without CommandArguments.getKeys(): a marked command whose keys cannot be read is not sent
            return new JedisDataException("Richter isolation refused a marked command: its keys cannot be read (" + e + ")");
        }
    }

    private static Object decide(IsolationGuard guard, CommandArguments args) {
        String command = new String(args.getCommand().getRaw(), StandardCharsets.UTF_8).toUpperCase(Locale.ROOT);
        List<Object> keys = args.getKeys();
        if (keys.isEmpty()) {
            ShadowDecision d = guard.decideRedis(command, "");
            guard.record(d);
            return d.refused() ? new JedisDataException(d.refusal()) : null;
        }
        List<byte[]> raw = new ArrayList<byte[]>();
        for (Rawable arg : args) {
            raw.add(arg.getRaw());
        }
        List<byte[]> keyBytes = new ArrayList<byte[]>();
        for (Object key : keys) {
            keyBytes.add(bytes(key));
        }
        int[] positions = RedisKeySpecs.positions(command, raw);
        if (positions == null || !RedisKeySpecs.match(raw, positions, keyBytes)) {
            ShadowDecision refused = ShadowDecision.refuse("redis " + command, "a marked " + command + " whose keys"
                    + " cannot be located by the command's key specification is not sent");
            guard.record(refused);
            return new JedisDataException(refused.refusal());
        }
        Object[] shadowKeys = new Object[keys.size()];
        boolean changed = false;
        for (int i = 0; i < keys.size(); i++) {
            Object key = keys.get(i);
            ShadowDecision d = guard.decideRedis(command, new String(bytes(key), StandardCharsets.UTF_8));
            guard.record(d);
            if (d.refused()) {
                return new JedisDataException(d.refusal());
            }
            if (d.rewritten().isPresent()) {
                String shadow = d.rewritten().get();
                shadowKeys[i] = key instanceof String ? shadow : shadow.getBytes(StandardCharsets.UTF_8);
                changed = true;
            }
        }
        return changed ? withKeys(args, positions, keys, shadowKeys) : null;
    }

    /**
     * A copy of {@code args} with the argument at each key position ({@link RedisKeySpecs}) replaced by its shadow key
     * where it has one; every other argument as it was, whatever its value.
     */
    private static CommandArguments withKeys(CommandArguments args, int[] positions, List<Object> keys,
                                             Object[] shadowKeys) {
        CommandArguments out = new CommandArguments(args.getCommand());
        Iterator<Rawable> it = args.iterator();
        it.next(); // the command itself, position 0
        int k = 0;
        for (int position = 1; it.hasNext(); position++) {
            Rawable arg = it.next();
            if (k < positions.length && positions[k] == position) {
                out.key(shadowKeys[k] != null ? shadowKeys[k] : keys.get(k));
                k++;
            } else {
                out.add(arg);
            }
        }
        if (args.isBlocking()) {
            out.blocking();
        }
        return out;
    }

    private static byte[] bytes(Object key) {
        if (key instanceof byte[]) {
            return (byte[]) key;
        }
        if (key instanceof Rawable) {
            return ((Rawable) key).getRaw();
        }
        return String.valueOf(key).getBytes(StandardCharsets.UTF_8);
    }
}
