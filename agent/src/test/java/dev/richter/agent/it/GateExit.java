package dev.richter.agent.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The exit the servers' test applications of {@link ServerGatesIT} call while they serve {@code /work}: {@code GET
 * -Dapp.exit} (a URL) with the JDK's {@code HttpClient}, whose answer is a mock's body when the request was marked and
 * the isolation loaded. Names no server's type, so each application's class path has what it needs.
 */
final class GateExit {
    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private GateExit() {}

    /** The body {@code -Dapp.exit} answers, or {@code error=<message>}. */
    static String call() {
        try {
            return CLIENT.send(HttpRequest.newBuilder(URI.create(System.getProperty("app.exit")))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
        } catch (IOException e) {
            return "error=" + e.getMessage();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "error=interrupted";
        }
    }
}
