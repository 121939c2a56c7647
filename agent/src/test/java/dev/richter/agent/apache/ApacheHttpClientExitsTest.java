package dev.richter.agent.apache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.RecordingGuard;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.impl.classic.CloseableHttpResponse;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.ParseException;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Apache HttpClient 5's helper with a guard installed by hand: no agent, no network. */
class ApacheHttpClientExitsTest {

    @AfterEach
    void uninstall() {
        IsolationBridge.install(null);
    }

    @Test
    void asksWithTheTargetOrTheRequestsAuthorityTheSchemesDefaultPortAndThePathWithoutQuery() {
        RecordingGuard guard = RecordingGuard.install(ExitDecision.PASS);

        assertNull(ApacheHttpClientExits.beforeExecute(null, new HttpPost("https://pay.example?x=1")));
        assertNull(ApacheHttpClientExits.beforeExecute(null, new HttpGet("http://pay.example:8080/a/b?x=1")));
        assertNull(ApacheHttpClientExits.beforeExecute(new HttpHost("http", "other.example", 9000),
                new HttpGet("/c")));

        assertEquals(List.of("POST pay.example:443 /", "GET pay.example:8080 /a/b", "GET other.example:9000 /c"),
                guard.asked);
        assertEquals(List.of(ExitDecision.PASS, ExitDecision.PASS, ExitDecision.PASS), guard.recorded);
    }

    @Test
    void aMockIsAnsweredAsTheClientsOwnResponse() throws IOException, ParseException {
        ExitDecision.Mock mock = new ExitDecision.Mock("pay.example/charge", 201,
                Map.of("Content-Type", "application/json", "X-Mock", "yes"), "{\"id\":\"ch_é\"}", 0);
        RecordingGuard guard = RecordingGuard.install(mock);

        CloseableHttpResponse response = assertInstanceOf(CloseableHttpResponse.class,
                ApacheHttpClientExits.beforeExecute(null, new HttpPost("https://pay.example/charge")));

        assertEquals(201, response.getCode());
        assertEquals("Created", response.getReasonPhrase());
        assertEquals("yes", response.getFirstHeader("X-Mock").getValue());
        assertEquals("14", response.getFirstHeader("Content-Length").getValue());
        assertEquals("application/json", response.getEntity().getContentType());
        assertEquals("{\"id\":\"ch_é\"}", EntityUtils.toString(response.getEntity(), java.nio.charset.StandardCharsets.UTF_8));
        assertEquals(List.of(mock), guard.recorded);
    }

    @Test
    void aRefusalIsAnIOExceptionNamingTheExit() {
        ExitDecision.Refuse refuse = new ExitDecision.Refuse("pay.example:443 GET /x", "outside the scope");
        RecordingGuard.install(refuse);

        IOException e = assertInstanceOf(IOException.class,
                ApacheHttpClientExits.beforeExecute(null, new HttpGet("https://pay.example/x")));

        assertEquals(refuse.message(), e.getMessage());
    }
}
