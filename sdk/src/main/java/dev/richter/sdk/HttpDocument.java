package dev.richter.sdk;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.time.Duration;

/**
 * One {@code GET} of a JSON document over HTTP(S) ({@code Accept: application/json}): the fetch of {@link ExitMocks}'
 * mock document and of the agent extension's isolation document. Through the JDK's {@link HttpURLConnection}, which
 * every Java version has ({@code java.net.http} begins at Java 11; the SDK and the extension run on Java 8 up).
 */
public final class HttpDocument {
    private final int status;
    private final byte[] body;

    private HttpDocument(int status, byte[] body) {
        this.status = status;
        this.body = body;
    }

    /** The response's HTTP status. */
    public int status() {
        return status;
    }

    /** The response's body when {@link #status()} is 200; empty for any other status (not read). */
    public byte[] body() {
        return body.clone();
    }

    /**
     * Fetches {@code url}.
     *
     * @param timeout         the connect timeout, and the read timeout: the longest wait for the response's next bytes
     * @param authorization   the {@code Authorization} header's value; {@code ""}: none
     * @param followRedirects whether a 3xx is followed (within the same protocol, as {@link HttpURLConnection} does);
     *                        else it is the answer
     * @throws IOException when the connection fails or a timeout passes
     */
    public static HttpDocument get(URI url, Duration timeout, String authorization, boolean followRedirects)
            throws IOException {
        HttpURLConnection c = (HttpURLConnection) url.toURL().openConnection();
        int timeoutMs = (int) Math.min(Integer.MAX_VALUE, Math.max(1, timeout.toMillis()));
        c.setConnectTimeout(timeoutMs);
        c.setReadTimeout(timeoutMs);
        c.setInstanceFollowRedirects(followRedirects);
        c.setUseCaches(false);
        c.setRequestMethod("GET");
        c.setRequestProperty("Accept", "application/json");
        if (!authorization.isEmpty()) {
            c.setRequestProperty("Authorization", authorization);
        }
        int status = c.getResponseCode();
        if (status != 200) {
            // read and closed, so that the connection can serve the next fetch
            try (InputStream error = c.getErrorStream()) {
                if (error != null) {
                    readAll(error);
                }
            }
            return new HttpDocument(status, new byte[0]);
        }
        try (InputStream in = c.getInputStream()) {
            return new HttpDocument(status, readAll(in));
        }
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[8192];
        for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }
}
