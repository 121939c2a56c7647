package dev.richter.loaddriver;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A minimal HTTP/1.1 server on the loopback interface that answers every request with the same small {@code 200},
 * keep-alive: the target of a worker's {@link WarmUp}, so that the warm-up's requests reach no real service. Plain
 * blocking sockets, one daemon thread per connection, and no Netty code, so that the server's calls do not enter the
 * type profiles of the client's Netty methods that the warm-up is there to compile.
 *
 * <p>Framing (RFC 9112 §6.3): a request is its head up to the empty line and then {@code Content-Length} bytes of body;
 * a chunked request body is not read (the load driver sends none: it frames every body with {@code Content-Length}),
 * and a head over {@value #MAX_HEAD_BYTES} bytes closes the connection.
 */
final class LoopbackResponder implements AutoCloseable {
    /** Largest request head read, bytes. */
    static final int MAX_HEAD_BYTES = 64 * 1024;
    /** The answer to every request: a short text body with the headers a typical service sends. */
    static final byte[] RESPONSE = ("HTTP/1.1 200 OK\r\nServer: richter-warm-up\r\nDate: Thu, 03 Dec 2026 00:00:00 GMT\r\n"
            + "Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok").getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket server;
    private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
    private final AtomicLong answered = new AtomicLong();

    /**
     * Listens on an ephemeral loopback port and starts accepting.
     *
     * @throws IOException when the port cannot be bound
     */
    LoopbackResponder() throws IOException {
        server = new ServerSocket(0, 1024, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "load-driver-warm-up-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** {@code http://127.0.0.1:<port>}, no trailing slash. */
    URI baseUri() {
        return URI.create("http://" + server.getInetAddress().getHostAddress() + ":" + server.getLocalPort());
    }

    /** Requests read whole so far, each counted before its answer is written. */
    long answered() {
        return answered.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                s.setTcpNoDelay(true);
                connections.add(s);
                Thread t = new Thread(() -> serve(s), "load-driver-warm-up-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    private void serve(Socket s) {
        try (s; InputStream in = s.getInputStream(); OutputStream out = s.getOutputStream()) {
            byte[] buf = new byte[16 * 1024];
            int len = 0;
            while (true) {
                int end = headEnd(buf, len);
                while (end < 0) {
                    if (len == buf.length) {
                        if (buf.length >= MAX_HEAD_BYTES) return;
                        buf = Arrays.copyOf(buf, buf.length * 2);
                    }
                    int n = in.read(buf, len, buf.length - len);
                    if (n < 0) return;
                    len += n;
                    end = headEnd(buf, len);
                }
                long bodyLeft = contentLength(buf, end);
                int inBuf = (int) Math.min(bodyLeft, len - end);
                int consumed = end + inBuf;
                bodyLeft -= inBuf;
                System.arraycopy(buf, consumed, buf, 0, len - consumed);
                len -= consumed;
                while (bodyLeft > 0) {
                    long skipped = in.skip(bodyLeft);
                    if (skipped <= 0) {
                        if (in.read() < 0) return;
                        skipped = 1;
                    }
                    bodyLeft -= skipped;
                }
                answered.incrementAndGet();
                out.write(RESPONSE);
                out.flush();
            }
        } catch (SocketException e) {
            // closed by either side
        } catch (IOException e) {
            // a warm-up connection that fails only ends itself
        } finally {
            connections.remove(s);
        }
    }

    /** The index just past the head's empty line ({@code CRLF CRLF}) in {@code buf[0, len)}, or -1. */
    static int headEnd(byte[] buf, int len) {
        for (int i = 3; i < len; i++) {
            if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
                return i + 1;
            }
        }
        return -1;
    }

    /** The head's {@code Content-Length} (0 when absent or not a number). */
    static long contentLength(byte[] buf, int headEnd) {
        String head = new String(buf, 0, headEnd, StandardCharsets.ISO_8859_1);
        for (String line : head.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
                try {
                    return Math.max(0, Long.parseLong(line.substring(colon + 1).trim()));
                } catch (NumberFormatException e) {
                    return 0;
                }
            }
        }
        return 0;
    }

    /** Stops accepting and closes every connection. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // already closed
        }
        for (Socket s : connections) {
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }
}
