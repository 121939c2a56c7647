package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.sdk.MarkerProof;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link TargetOwnedCheck} against real HTTP answers: a service shows its team runs it by its extension's isolation
 * load, or by answering its token at the ownership path; an address that answers another team's token, nothing, or a
 * redirect does not.
 */
class TargetOwnedCheckTest {
    private static final String KEY = MarkerProof.newKey();
    private static final long NOW = 1_796_000_000_000L;
    private HttpServer server;
    private volatile String answer = "";
    private final AtomicInteger asked = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(MarkerProof.OWNERSHIP_PATH, ex -> {
            asked.incrementAndGet();
            byte[] b = answer.getBytes(StandardCharsets.UTF_8);
            if (answer.startsWith("redirect:")) {
                ex.getResponseHeaders().add("Location", answer.substring("redirect:".length()));
                ex.sendResponseHeaders(302, -1);
            } else {
                ex.sendResponseHeaders(answer.isEmpty() ? 404 : 200, answer.isEmpty() ? -1 : b.length);
                if (!answer.isEmpty()) ex.getResponseBody().write(b);
            }
            ex.close();
        });
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private List<CheckResult> check(String team, Optional<Long> loadedAt, AllowedNetworks networks) {
        var svc = new RegisteredService(team, "orders", "http://127.0.0.1:" + server.getAddress().getPort() + "/", "/health",
                null, List.of());
        return TargetOwnedCheck.check(team, List.of(svc), name -> MarkerProof.ownershipToken(KEY, team, name),
                name -> loadedAt, TargetOwnedCheck.fetcher(HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER).build(),
                        networks), NOW);
    }

    private static final AllowedNetworks LOCAL = new AllowedNetworks("", true, InetAddress::getAllByName);

    @Test
    void theTokenAtTheOwnershipPathShowsTheTeamRunsTheService() {
        answer = MarkerProof.ownershipToken(KEY, "shop-team", "orders") + "\n";
        CheckResult r = check("shop-team", Optional.empty(), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.PASS, r.outcome(), r.evidence());
        assertEquals("orders", r.subject());
        assertTrue(r.evidence().endsWith(MarkerProof.OWNERSHIP_PATH + " answered team shop-team's ownership token"), r.evidence());
    }

    @Test
    void anotherTeamsTokenNothingOrARedirectIsAFailNamingWhatWasTried() {
        answer = MarkerProof.ownershipToken(KEY, "other-team", "orders");
        CheckResult other = check("shop-team", Optional.empty(), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.FAIL, other.outcome());
        assertTrue(other.evidence().contains("answered another text than the token"), other.evidence());
        assertTrue(other.evidence().contains("serve the token of GET /services/orders (ownership) there"), other.evidence());

        answer = "";
        CheckResult none = check("shop-team", Optional.empty(), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.FAIL, none.outcome());
        assertTrue(none.evidence().contains("answered 404"), none.evidence());

        answer = "redirect:http://127.0.0.1:9/";
        CheckResult redirect = check("shop-team", Optional.empty(), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.FAIL, redirect.outcome(), "a redirect is not followed");
        assertTrue(redirect.evidence().contains("answered 302"), redirect.evidence());
    }

    @Test
    void aRecentIsolationLoadIsEvidenceAndAnOldOneIsNot() {
        CheckResult recent = check("shop-team", Optional.of(NOW - 3_600_000L), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.PASS, recent.outcome(), recent.evidence());
        assertTrue(recent.evidence().startsWith("its Richter extension loaded team shop-team's isolation document at"), recent.evidence());
        assertEquals(0, asked.get(), "the address is not asked when the extension showed it");

        CheckResult old = check("shop-team", Optional.of(NOW - 25 * 3_600_000L), LOCAL).getFirst();
        assertEquals(CheckResult.Outcome.FAIL, old.outcome());
        assertTrue(old.evidence().contains("(last at "), old.evidence());
    }

    @Test
    void anAddressTheDeploymentRefusesIsNotAsked() {
        answer = MarkerProof.ownershipToken(KEY, "shop-team", "orders");
        CheckResult r = check("shop-team", Optional.empty(), new AllowedNetworks("", false, InetAddress::getAllByName)).getFirst();
        assertEquals(CheckResult.Outcome.FAIL, r.outcome());
        assertTrue(r.evidence().contains("could not be read (not called: 127.0.0.1 is loopback"), r.evidence());
        assertEquals(0, asked.get());
    }

    @Test
    void aTokenIsTheTeamsAndTheServicesOwn() {
        String t = MarkerProof.ownershipToken(KEY, "shop-team", "orders");
        assertEquals(22, t.length());
        assertEquals(t, MarkerProof.ownershipToken(KEY, "shop-team", "orders"));
        assertTrue(!t.equals(MarkerProof.ownershipToken(KEY, "shop-team", "payments")));
        assertTrue(!t.equals(MarkerProof.ownershipToken(MarkerProof.newKey(), "shop-team", "orders")));
    }
}
