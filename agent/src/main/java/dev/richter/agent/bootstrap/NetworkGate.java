package dev.richter.agent.bootstrap;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketAddress;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The network catch-all: every TCP connection a client opens ({@code java.net.Socket.connect}, {@code
 * SocketChannel.connect}) and every write on one it opened ({@code Socket}'s output stream, {@code
 * SocketChannel.write}) is decided by {@link IsolationGuard#decideNetwork} when the thread's context is marked, so a
 * client Richter has no instrumentation for cannot carry marked work out of scope (issue 46, item 4).
 *
 * <p>What it covers: connects and writes made on a thread whose OpenTelemetry context carries the marker, which is
 * every blocking client called from the marked request's thread (Apache HttpClient 4, raw sockets, SDKs built on
 * either, JDBC drivers and Redis clients outside their own guards), pooled connections included: a connection opened
 * unmarked and later written by marked work is decided at that write. What it cannot cover: I/O done on threads that
 * do not carry the caller's context (Netty event loops of reactor-netty, Lettuce and gRPC when the agent does not
 * propagate to them; the Kafka producer's sender thread), Netty's native epoll transport (its connect and writes are
 * JNI calls, no JDK socket method), UDP, and writes on Java 8 to 13, whose {@code Socket} streams are another class
 * (connects are covered on every version). Sockets a server accepted are never decided: only connections opened by a
 * {@code connect} are registered.
 *
 * <p>A connection's decision for writes is computed at its first marked write and kept for that configuration (the
 * same client writes a connection for its life), so a marked write costs one map look-up after the first; an unmarked
 * one costs the marker check. On the boot class path (called from advice inlined into {@code java.net.Socket}, its
 * output stream and {@code sun.nio.ch.SocketChannelImpl}); only java.base types. Never throws but the refusal it
 * returns.
 */
public final class NetworkGate {
    /** The connections opened by {@code connect}: socket or channel → where it goes. Weak keys, identity semantics. */
    private static final Map<Object, Remote> OPENED = Collections.synchronizedMap(new WeakHashMap<Object, Remote>());
    private static final ThreadLocal<Boolean> DECIDING = new ThreadLocal<Boolean>();

    private NetworkGate() {}

    /** Where a connection goes, and its write decision for one configuration. */
    private static final class Remote {
        final String host;
        final String ip;
        final int port;
        volatile Object decidedFor;
        volatile ExitDecision decision;

        Remote(String host, String ip, int port) {
            this.host = host;
            this.ip = ip;
            this.port = port;
        }
    }

    /**
     * Before a socket or channel connects: registers the connection and, when the context is marked, decides it.
     *
     * @param connection the {@code Socket} or {@code SocketChannel} connecting
     * @param address    where to ({@code InetSocketAddress}; other kinds, e.g. Unix domain sockets, are not decided)
     * @return {@code null}: go on; a {@code ConnectException} to throw instead, nothing sent
     */
    public static IOException beforeConnect(Object connection, SocketAddress address) {
        if (connection == null || !(address instanceof InetSocketAddress) || DECIDING.get() != null) {
            return null;
        }
        InetSocketAddress a = (InetSocketAddress) address;
        Remote remote = new Remote(a.getHostString(), a.getAddress() == null ? "" : a.getAddress().getHostAddress(),
                a.getPort());
        OPENED.put(connection, remote);
        IsolationGuard guard = IsolationBridge.guard();
        if (!guard.marked()) {
            return null;
        }
        ExitDecision decision = decide(guard, remote);
        return decision instanceof ExitDecision.Refuse
                ? new ConnectException(((ExitDecision.Refuse) decision).message())
                : null;
    }

    /**
     * Before a write on a connection: when the context is marked and the connection was opened by a {@code connect},
     * decides it (once per connection and configuration).
     *
     * @param connection the {@code Socket} or {@code SocketChannel} written
     * @return {@code null}: go on; an {@code IOException} to throw instead, nothing written
     */
    public static IOException beforeWrite(Object connection) {
        if (connection == null || DECIDING.get() != null) {
            return null;
        }
        IsolationGuard guard = IsolationBridge.guard();
        if (!guard.marked()) {
            return null;
        }
        Remote remote = OPENED.get(connection);
        if (remote == null) {
            return null;
        }
        Object configuration = guard.configuration();
        ExitDecision decision = remote.decision;
        if (decision == null || remote.decidedFor != configuration || configuration == null) {
            decision = decide(guard, remote);
            remote.decision = decision;
            remote.decidedFor = configuration;
        } else if (!(decision instanceof ExitDecision.Pass)) {
            record(guard, decision);
        }
        return decision instanceof ExitDecision.Refuse
                ? new IOException("Richter isolation refused a marked write on an open connection to exit '"
                        + ((ExitDecision.Refuse) decision).exit() + "': " + ((ExitDecision.Refuse) decision).reason())
                : null;
    }

    /** {@link #beforeWrite} of the socket a {@code Socket}'s output stream belongs to. */
    public static IOException beforeWrite(Socket socket) {
        return beforeWrite((Object) socket);
    }

    private static ExitDecision decide(IsolationGuard guard, Remote remote) {
        DECIDING.set(Boolean.TRUE);
        try {
            ExitDecision decision = guard.decideNetwork(remote.host, remote.ip, remote.port);
            guard.record(decision);
            return decision;
        } finally {
            DECIDING.remove();
        }
    }

    private static void record(IsolationGuard guard, ExitDecision decision) {
        DECIDING.set(Boolean.TRUE);
        try {
            guard.record(decision);
        } finally {
            DECIDING.remove();
        }
    }
}
