package dev.richter.agent.lettuce;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.agent.redis.RedisKeySpecs;
import io.lettuce.core.RedisException;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandWrapper;
import io.lettuce.core.protocol.RedisCommand;
import io.lettuce.core.protocol.RichterCommandArgs;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

/**
 * The isolation at Lettuce (tested with 6.6.0.RELEASE, Spring Boot 3.5's): every command of a connection, whichever API
 * built it (sync, async, reactive; Spring Data Redis's templates over {@code LettuceConnectionFactory}), goes through
 * {@code io.lettuce.core.protocol.DefaultEndpoint.write(RedisCommand)} or {@code write(Collection)} before any byte of
 * it is written to the connection or queued for one, on the thread that sends it. There each command is decided:
 * <ul>
 *   <li>unmarked (the current context carries no marker, and the command is no {@link MarkedCommand}): written as it
 *       is, looked at no further;</li>
 *   <li>marked: its keys are located by the command's key specification ({@link RedisKeySpecs}) and checked against
 *       the arguments Lettuce holds as keys ({@link RichterCommandArgs#keyPositions}); each key is decided by the
 *       {@link IsolationGuard} ({@code decideRedis}, {@code kind: cache}) and replaced by its shadow key at that
 *       position only (a value equal to a key's name stays a value). A command whose keys cannot be located so (no
 *       specification, or one that disagrees with Lettuce's keys), or cannot be read (another Lettuce's internals),
 *       a key no prefix maps written, or a binary key that is not UTF-8 text to be shadowed, is refused: it is
 *       completed exceptionally with Lettuce's own {@link RedisException} naming the command and the key, and is
 *       never written.</li>
 * </ul>
 * The reactive API sends a command when it is subscribed to, which may be on a thread where the marker is not current:
 * a reactive command built in a marked context is tagged then ({@link #atAssembly}), and decided as marked when sent.
 * Lettuce's connects ({@code AbstractRedisClient.initializeChannelAsync0}, {@code ReconnectionHandler.reconnect0}) and
 * the writes of decided commands run in a context that names Lettuce as a decided client ({@link #decided()}): Netty
 * runs them on its event loops, where the agent carries the caller's marked context but no Lettuce frame is on the
 * stack, and the network catch-all would refuse them. Injected by the agent as a helper next to Lettuce; no lambdas.
 */
public final class LettuceExits {
    private LettuceExits() {}

    /** The client's name in a context of {@link IsolationGuard#decidedClient}. */
    static final String CLIENT = "lettuce";

    /**
     * Before {@code DefaultEndpoint.write(command)}: decides the command as {@link #refused(RedisCommand)} does.
     *
     * @return {@link Boolean#TRUE}: refused, do not write it; a {@link MarkerScope} to close once written (a marked
     *     context: the write Netty runs on its event loop is Lettuce's, for the network catch-all); {@code null}: write
     *     it
     */
    public static Object beforeWrite(RedisCommand<?, ?, ?> command) {
        if (command == null) {
            return null;
        }
        IsolationGuard guard = IsolationBridge.guard();
        boolean markedWhereBuilt = markedWhereBuilt(command);
        boolean markedHere = guard.marked();
        if (!markedWhereBuilt && !markedHere) {
            return null;
        }
        if (refused(guard, command, markedWhereBuilt)) {
            return Boolean.TRUE;
        }
        return markedHere ? guard.decidedClient(CLIENT) : null;
    }

    /**
     * Before {@code DefaultEndpoint.write(commands)}, as {@link #beforeWrite} for each.
     *
     * @return a {@link MarkerScope} to close once written in a marked context, else {@code null}
     */
    public static MarkerScope decided() {
        IsolationGuard guard = IsolationBridge.guard();
        return guard.marked() ? guard.decidedClient(CLIENT) : null;
    }

    /**
     * Before {@code DefaultEndpoint.write(command)}: decides the command, rewriting its keys in place when it has shadow
     * keys.
     *
     * @return {@code true}: refused, the command is completed exceptionally and must not be written; {@code false}:
     *     write it
     */
    public static boolean refused(RedisCommand<?, ?, ?> command) {
        if (command == null) {
            return false;
        }
        IsolationGuard guard = IsolationBridge.guard();
        boolean markedWhereBuilt = markedWhereBuilt(command);
        return (markedWhereBuilt || guard.marked()) && refused(guard, command, markedWhereBuilt);
    }

    /** Decides a marked command: {@code true} when refused (then completed exceptionally). */
    private static boolean refused(IsolationGuard guard, RedisCommand<?, ?, ?> command, boolean markedWhereBuilt) {
        ShadowDecision refusal;
        try {
            refusal = decide(guard, command, markedWhereBuilt);
        } catch (RuntimeException | LinkageError e) {
            refusal = ShadowDecision.refuse("redis " + nameOrCommand(command), "a marked command whose keys cannot be"
                    + " read is not sent (" + e + ")");
            guard.record(refusal);
        }
        if (refusal == null) {
            return false;
        }
        command.completeExceptionally(new RedisException(refusal.refusal()));
        return true;
    }

    /**
     * Before {@code DefaultEndpoint.write(commands)}: decides each command as {@link #refused(RedisCommand)} does.
     *
     * @return {@code commands} itself when none was refused; else a new list of those not refused (empty when all
     *     were), the refused ones completed exceptionally
     */
    public static <C extends RedisCommand<?, ?, ?>> Collection<C> notRefused(Collection<C> commands) {
        if (commands == null) {
            return null;
        }
        List<C> kept = null;
        int i = 0;
        for (C command : commands) {
            if (refused(command)) {
                if (kept == null) {
                    kept = new ArrayList<C>(commands.size());
                    int j = 0;
                    for (C earlier : commands) {
                        if (j++ == i) {
                            break;
                        }
                        kept.add(earlier);
                    }
                }
            } else if (kept != null) {
                kept.add(command);
            }
            i++;
        }
        return kept == null ? commands : kept;
    }

    /**
     * On the application's call into Lettuce's reactive API ({@code AbstractRedisReactiveCommands.createMono}, {@code
     * createFlux}): in a marked context, the supplier of the command to send at subscription becomes one that tags it
     * ({@link MarkedAtAssembly}); unmarked, {@code commands} itself.
     */
    public static <K, V, T> Supplier<RedisCommand<K, V, T>> atAssembly(Supplier<RedisCommand<K, V, T>> commands) {
        if (commands == null || commands instanceof MarkedAtAssembly || !IsolationBridge.guard().marked()) {
            return commands;
        }
        return new MarkedAtAssembly<K, V, T>(commands);
    }

    /** Whether the command was built by the reactive API in a marked context; false on a Lettuce that cannot say. */
    private static boolean markedWhereBuilt(RedisCommand<?, ?, ?> command) {
        try {
            return command instanceof MarkedCommand || CommandWrapper.unwrap(command, MarkedCommand.class) != null;
        } catch (LinkageError e) {
            return false;
        }
    }

    /** The refusal, recorded, or {@code null} when the command may be written (its keys replaced by their shadows). */
    private static ShadowDecision decide(IsolationGuard guard, RedisCommand<?, ?, ?> command, boolean markedWhereBuilt) {
        String name = name(command);
        CommandArgs<?, ?> args = command.getArgs();
        List<byte[]> raw = new ArrayList<byte[]>();
        raw.add(name.getBytes(StandardCharsets.US_ASCII));
        int[] keyPositions = new int[0];
        if (args != null) {
            raw.addAll(RichterCommandArgs.encoded(args));
            keyPositions = RichterCommandArgs.keyPositions(args);
        }
        int[] positions = RedisKeySpecs.positions(name, raw);
        if (keyPositions.length == 0 && (positions == null || positions.length == 0)) {
            ShadowDecision d = guard.decideRedis(name, "", markedWhereBuilt);
            guard.record(d);
            return d.refused() ? d : null;
        }
        if (positions == null || !Arrays.equals(positions, keyPositions)) {
            ShadowDecision refused = ShadowDecision.refuse("redis " + name, "a marked " + name + " whose keys"
                    + " cannot be located by the command's key specification is not sent");
            guard.record(refused);
            return refused;
        }
        byte[][] shadowKeys = new byte[positions.length][];
        for (int i = 0; i < positions.length; i++) {
            byte[] key = raw.get(positions[i]);
            String text = utf8(key);
            String shown = text != null ? text : new String(key, StandardCharsets.UTF_8);
            ShadowDecision d = guard.decideRedis(name, shown, markedWhereBuilt);
            guard.record(d);
            if (d.refused()) {
                return d;
            }
            if (d.rewritten().isPresent()) {
                if (text == null) {
                    ShadowDecision refused = ShadowDecision.refuse("redis " + name + " " + shown, "a marked " + name
                            + " of a key that is not UTF-8 text cannot be given its shadow prefix exactly");
                    guard.record(refused);
                    return refused;
                }
                shadowKeys[i] = d.rewritten().get().getBytes(StandardCharsets.UTF_8);
            }
        }
        for (int i = 0; i < positions.length; i++) {
            if (shadowKeys[i] != null) {
                RichterCommandArgs.replaceKey(args, positions[i], shadowKeys[i]);
            }
        }
        return null;
    }

    /** The command's name, upper case ({@code SET}); its first word for a container command ({@code CLIENT}). */
    private static String name(RedisCommand<?, ?, ?> command) {
        return new String(command.getType().getBytes(), StandardCharsets.US_ASCII).toUpperCase(Locale.ROOT);
    }

    private static String nameOrCommand(RedisCommand<?, ?, ?> command) {
        try {
            return name(command);
        } catch (RuntimeException | LinkageError e) {
            return "command";
        }
    }

    /** The key as UTF-8 text, or {@code null} when its bytes are not UTF-8. */
    private static String utf8(byte[] key) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
