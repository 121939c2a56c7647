package dev.richter.agent.otel;

import static net.bytebuddy.matcher.ElementMatchers.isMethod;
import static net.bytebuddy.matcher.ElementMatchers.isPublic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

import dev.richter.agent.bootstrap.NetworkGate;
import io.opentelemetry.javaagent.extension.ignore.IgnoredTypesBuilder;
import io.opentelemetry.javaagent.extension.ignore.IgnoredTypesConfigurer;
import io.opentelemetry.javaagent.extension.instrumentation.TypeInstrumentation;
import io.opentelemetry.javaagent.extension.instrumentation.TypeTransformer;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigProperties;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Arrays;
import java.util.List;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.matcher.ElementMatcher;

/**
 * The network catch-all ({@link NetworkGate}): advice on the JDK's TCP connects and writes, whatever client calls
 * them. Instrumentation name {@code richter-network}.
 * <ul>
 *   <li>{@code java.net.Socket.connect(SocketAddress, int)}: every blocking socket's connect (the constructors that
 *       connect, {@code connect(SocketAddress)} and {@code SSLSocket}s call it);</li>
 *   <li>{@code sun.nio.ch.SocketChannelImpl.connect(SocketAddress)}: every NIO channel's connect;</li>
 *   <li>{@code java.net.Socket$SocketOutputStream.write(byte[], int, int)} (Java 14 and later; {@code write(int)}
 *       calls it) and {@code SocketChannelImpl.write(ByteBuffer)}, {@code write(ByteBuffer[], int, int)}: writes,
 *       TLS records included (an {@code SSLSocket} writes them through its own socket's stream).</li>
 * </ul>
 * The agent ignores {@code java.*} and {@code sun.*} classes by default; {@link AllowSockets} lets these in. Each
 * advice names only the bridge and JDK types (the classes are on the boot class path, where the bridge is).
 */
public final class NetworkInstrumentationModule extends RichterInstrumentationModule {
    public NetworkInstrumentationModule() {
        super("richter-network");
    }

    @Override
    protected List<TypeInstrumentation> instrumentations() {
        return Arrays.<TypeInstrumentation>asList(new NetworkSocketInstrumentation(), new NetworkStreamInstrumentation(),
                new NetworkChannelInstrumentation());
    }

    /** Lets the agent instrument the socket classes above, which its global ignores leave out. */
    public static final class AllowSockets implements IgnoredTypesConfigurer {
        @Override
        public void configure(IgnoredTypesBuilder builder, ConfigProperties config) {
            builder.allowClass("java.net.Socket");
            builder.allowClass("sun.nio.ch.SocketChannelImpl");
        }
    }

    static final class NetworkSocketInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named("java.net.Socket");
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("connect")).and(takesArguments(2))
                    .and(takesArgument(0, named("java.net.SocketAddress"))), NetworkInstrumentationModule.class.getName()
                    + "$NetworkConnectAdvice");
        }
    }

    static final class NetworkStreamInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named("java.net.Socket$SocketOutputStream");
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("write")).and(takesArguments(3)),
                    NetworkInstrumentationModule.class.getName() + "$NetworkStreamWriteAdvice");
        }
    }

    static final class NetworkChannelInstrumentation implements TypeInstrumentation {
        @Override
        public ElementMatcher<TypeDescription> typeMatcher() {
            return named("sun.nio.ch.SocketChannelImpl");
        }

        @Override
        public void transform(TypeTransformer transformer) {
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("connect")).and(takesArguments(1))
                    .and(takesArgument(0, named("java.net.SocketAddress"))), NetworkInstrumentationModule.class.getName()
                    + "$NetworkConnectAdvice");
            transformer.applyAdviceToMethod(isMethod().and(isPublic()).and(named("write")),
                    NetworkInstrumentationModule.class.getName() + "$NetworkChannelWriteAdvice");
        }
    }

    /** Inlined into {@code Socket.connect} and {@code SocketChannelImpl.connect}: throws the gate's refusal first. */
    @SuppressWarnings("unused")
    public static final class NetworkConnectAdvice {
        private NetworkConnectAdvice() {}

        @Advice.OnMethodEnter
        public static void enter(@Advice.This Object connection, @Advice.Argument(0) SocketAddress address)
                throws IOException {
            IOException refusal = NetworkGate.beforeConnect(connection, address);
            if (refusal != null) {
                throw refusal;
            }
        }
    }

    /** Inlined into {@code Socket$SocketOutputStream.write(byte[], int, int)}: its {@code parent} is the socket. */
    @SuppressWarnings("unused")
    public static final class NetworkStreamWriteAdvice {
        private NetworkStreamWriteAdvice() {}

        @Advice.OnMethodEnter
        public static void enter(@Advice.FieldValue("parent") Socket parent) throws IOException {
            IOException refusal = NetworkGate.beforeWrite(parent);
            if (refusal != null) {
                throw refusal;
            }
        }
    }

    /** Inlined into {@code SocketChannelImpl.write(...)}. */
    @SuppressWarnings("unused")
    public static final class NetworkChannelWriteAdvice {
        private NetworkChannelWriteAdvice() {}

        @Advice.OnMethodEnter
        public static void enter(@Advice.This Object channel) throws IOException {
            IOException refusal = NetworkGate.beforeWrite(channel);
            if (refusal != null) {
                throw refusal;
            }
        }
    }
}
