package dev.richter.agent.lettuce;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.isolation.IsolationConfigSource;
import dev.richter.agent.isolation.IsolationSettings;
import dev.richter.agent.isolation.RichterIsolationGuard;
import io.lettuce.core.RedisCommandBuilderAccess;
import io.lettuce.core.RedisException;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.StatusOutput;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.Command;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.lettuce.core.protocol.RedisCommand;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lettuce's helper called where the advice calls it (before {@code DefaultEndpoint.write}), on commands Lettuce's own
 * command builder builds, with the extension's guard over a document mapping {@code stock:} to {@code shadow:stock:}
 * and the marker switched by hand. What would be sent is read from the command's encoding, as Lettuce writes it.
 */
class LettuceExitsTest {
    private final AtomicBoolean marked = new AtomicBoolean();

    @BeforeEach
    void install(@TempDir Path dir) throws Exception {
        Path file = Files.writeString(dir.resolve("i.json"), """
                {"mode": "enforce", "scope": [], "mocks": [],
                 "shadows": [{"kind": "cache", "production": "stock:", "shadow": "shadow:stock:"}]}""");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        IsolationBridge.install(new RichterIsolationGuard(source, marked::get));
    }

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    /** The command as Lettuce writes it to the connection: its words, space-separated. */
    private static String wire(RedisCommand<?, ?, ?> command) {
        ByteBuf buf = Unpooled.buffer();
        command.encode(buf);
        String[] lines = buf.toString(StandardCharsets.UTF_8).split("\r\n");
        buf.release();
        List<String> words = new ArrayList<>();
        for (int i = 2; i < lines.length; i += 2) {
            words.add(lines[i]);
        }
        return String.join(" ", words);
    }

    private static <T> AsyncCommand<String, String, T> async(RedisCommand<String, String, T> command) {
        return new AsyncCommand<>(command);
    }

    @Test
    void anUnmarkedCommandIsNotTouched() {
        RedisCommand<String, String, String> set = async(RedisCommandBuilderAccess.set("stock:1", "7"));

        assertFalse(LettuceExits.refused(set));
        assertEquals("SET stock:1 7", wire(set));
    }

    @Test
    void aMarkedCommandsKeysGetTheShadowPrefixAtTheSpecificationsPositionsOnly() {
        marked.set(true);
        RedisCommand<String, String, String> set = async(RedisCommandBuilderAccess.set("stock:1", "stock:1"));
        RedisCommand<String, String, String> mset = async(RedisCommandBuilderAccess.mset(Map.of("stock:5", "stock:6")));
        RedisCommand<String, String, Long> del = async(RedisCommandBuilderAccess.del("stock:1", "stock:2"));
        RedisCommand<String, String, ?> mget = async(RedisCommandBuilderAccess.mget("stock:1", "stock:2"));

        assertFalse(LettuceExits.refused(set));
        assertFalse(LettuceExits.refused(mset));
        assertFalse(LettuceExits.refused(del));
        assertFalse(LettuceExits.refused(mget));
        assertEquals("SET shadow:stock:1 stock:1", wire(set), "the value equal to the key stays a value");
        assertEquals("MSET shadow:stock:5 stock:6", wire(mset));
        assertEquals("DEL shadow:stock:1 shadow:stock:2", wire(del));
        assertEquals("MGET shadow:stock:1 shadow:stock:2", wire(mget));
    }

    @Test
    void bytesKeysOfSpringDataRedissCodecAreShadowedAsBytes() {
        marked.set(true);
        CommandArgs<byte[], byte[]> args = new CommandArgs<>(ByteArrayCodec.INSTANCE)
                .addKey("stock:9".getBytes(StandardCharsets.UTF_8)).addValue("v".getBytes(StandardCharsets.UTF_8));
        RedisCommand<byte[], byte[], String> set = new AsyncCommand<>(new Command<>(CommandType.SET,
                new StatusOutput<>(ByteArrayCodec.INSTANCE), args));

        assertFalse(LettuceExits.refused(set));
        assertEquals("SET shadow:stock:9 v", wire(set));
    }

    @Test
    void aMarkedWriteToAnUnmappedKeyIsRefusedNamingItAndLeftAsItWas() {
        marked.set(true);
        AsyncCommand<String, String, String> mset = async(RedisCommandBuilderAccess.mset(new java.util.LinkedHashMap<>(Map.of("stock:2", "1"))));
        AsyncCommand<String, String, Long> del = async(RedisCommandBuilderAccess.del("stock:3", "session:4"));

        assertTrue(LettuceExits.refused(del));
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, del::get);
        assertInstanceOf(RedisException.class, e.getCause());
        assertTrue(e.getCause().getMessage().startsWith("Richter isolation refused a marked call to exit"
                + " 'redis DEL session:4': a marked write to key 'session:4'"), e.getCause().getMessage());
        assertEquals("DEL stock:3 session:4", wire(del), "refused before any key was replaced");
        assertFalse(LettuceExits.refused(mset));
    }

    @Test
    void aMarkedCommandWhoseKeysDisagreeWithItsSpecificationIsRefused() {
        marked.set(true);
        // every argument as a key, as Spring's RedisConnection.execute("SET", args) builds it
        CommandArgs<String, String> args = new CommandArgs<>(StringCodec.UTF8).addKey("stock:1").addKey("7");
        AsyncCommand<String, String, String> set = async(new Command<>(CommandType.SET,
                new StatusOutput<>(StringCodec.UTF8), args));
        // a key written as a plain string: Lettuce does not know it as a key
        AsyncCommand<String, String, String> get = async(new Command<>(CommandType.GET,
                new StatusOutput<>(StringCodec.UTF8), new CommandArgs<>(StringCodec.UTF8).add("stock:1")));

        assertTrue(LettuceExits.refused(set));
        assertTrue(LettuceExits.refused(get));
        assertTrue(set.isCompletedExceptionally() && get.isCompletedExceptionally());
        assertEquals("SET stock:1 7", wire(set));
    }

    @Test
    void aKeylessCommandPassesWhenItOnlyReadsAndIsRefusedWhenItWrites() {
        marked.set(true);
        AsyncCommand<String, String, String> ping = async(new Command<>(CommandType.PING,
                new StatusOutput<>(StringCodec.UTF8)));
        AsyncCommand<String, String, String> flush = async(new Command<>(CommandType.FLUSHALL,
                new StatusOutput<>(StringCodec.UTF8)));

        assertFalse(LettuceExits.refused(ping));
        assertTrue(LettuceExits.refused(flush));
    }

    @Test
    void aCollectionKeepsWhatIsNotRefused() {
        marked.set(true);
        AsyncCommand<String, String, String> a = async(RedisCommandBuilderAccess.set("stock:1", "1"));
        AsyncCommand<String, String, String> b = async(RedisCommandBuilderAccess.set("session:1", "1"));
        AsyncCommand<String, String, String> c = async(RedisCommandBuilderAccess.set("stock:2", "1"));
        List<RedisCommand<String, String, ?>> all = List.of(a, b, c);

        assertEquals(List.of(a, c), LettuceExits.notRefused(all));
        assertTrue(b.isCompletedExceptionally());
        List<RedisCommand<String, String, ?>> fine = List.of(a, c);
        assertSame(fine, LettuceExits.notRefused(fine));
    }

    @Test
    void aReactiveCommandBuiltMarkedIsDecidedAsMarkedWhereverItIsSent() {
        marked.set(true);
        Supplier<RedisCommand<String, String, String>> built = LettuceExits.atAssembly(
                () -> RedisCommandBuilderAccess.set("stock:1", "1"));
        Supplier<RedisCommand<String, String, String>> refusedLater = LettuceExits.atAssembly(
                () -> RedisCommandBuilderAccess.set("session:1", "1"));
        marked.set(false);
        Supplier<RedisCommand<String, String, String>> unmarked = LettuceExits.atAssembly(
                () -> RedisCommandBuilderAccess.set("stock:1", "1"));

        RedisCommand<String, String, String> sent = async(built.get());
        assertFalse(LettuceExits.refused(sent), "the marker is not current when it is sent");
        assertEquals("SET shadow:stock:1 1", wire(sent));
        assertTrue(LettuceExits.refused(async(refusedLater.get())));
        RedisCommand<String, String, String> production = async(unmarked.get());
        assertFalse(LettuceExits.refused(production));
        assertEquals("SET stock:1 1", wire(production));
    }
}
