package dev.richter.agent.bootstrap;

import java.io.IOException;
import java.net.HttpURLConnection;
import java.net.URL;
import java.util.Locale;

/**
 * The isolation at the JDK's {@code java.net.HttpURLConnection} (the client behind Spring's {@code RestTemplate}
 * default factory and Feign's default client): before a marked connection connects, sends its body or reads its
 * answer, the call is decided like any HTTP exit ({@link IsolationGuard#decideHttp}) and recorded on the current
 * span. A call inside the test's scope passes. Any other is refused with an {@code IOException} naming the exit,
 * before a byte is sent: a refusal, and also a configured mock, which this client cannot be answered by (its answer
 * is read from the connection's own internal state), so a marked call to a mocked exit never reaches the real one.
 * Report mode lets the call through and records it. On the boot class path (called from advice inlined into the
 * JDK's {@code sun.net.www.protocol.http.HttpURLConnection}); only java.base types.
 */
public final class UrlConnectionGate {
    private UrlConnectionGate() {}

    /**
     * @param connection the connection about to connect, send or read
     * @return {@code null}: go on; an {@code IOException} to throw instead, nothing sent
     */
    public static IOException before(HttpURLConnection connection) {
        IsolationGuard guard = IsolationBridge.guard();
        if (connection == null || !guard.marked()) {
            return null;
        }
        URL url = connection.getURL();
        int port = url.getPort() >= 0 ? url.getPort() : url.getDefaultPort();
        String method = connection.getRequestMethod() == null ? "GET"
                : connection.getRequestMethod().toUpperCase(Locale.ROOT);
        String path = url.getPath() == null || url.getPath().isEmpty() ? "/" : url.getPath();
        ExitDecision decision = guard.decideHttp(method, url.getHost(), port, path);
        if (decision instanceof ExitDecision.Mock) {
            ExitDecision.Mock mock = (ExitDecision.Mock) decision;
            decision = new ExitDecision.Refuse(mock.exit(), "its mock cannot answer java.net.HttpURLConnection;"
                    + " refused so the real exit is never called (use the JDK HttpClient, Apache HttpClient 5 or"
                    + " OkHttp for mocked exits)");
        }
        guard.record(decision);
        if (decision instanceof ExitDecision.Refuse) {
            return new IOException(((ExitDecision.Refuse) decision).message());
        }
        return null;
    }
}
