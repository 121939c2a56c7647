package dev.richter.agent.isolation;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.MarkerScope;
import dev.richter.agent.bootstrap.ShadowDecision;
import dev.richter.sdk.MarkerProof;
import io.opentelemetry.api.baggage.Baggage;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RichterIsolationGuardTest {

    private static IsolationConfigSource notLoaded() {
        return new IsolationConfigSource(new IsolationSettings(Optional.empty(), "", Optional.empty(), 30));
    }

    private static IsolationConfigSource loaded(Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("i.json"), "{\"scope\":[\"a.internal\"],\"mocks\":[]}");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        return source;
    }

    @Test
    void readsTheMarkerFromTheCurrentContextsBaggage() {
        assertFalse(RichterIsolationGuard.markedInCurrentContext());
        try (Scope s = Baggage.builder().put("richter-loadtest", "1").put("other", "x").build().makeCurrent()) {
            assertTrue(RichterIsolationGuard.markedInCurrentContext());
        }
        try (Scope s = Baggage.builder().put("richter-loadtest", "0").build().makeCurrent()) {
            assertFalse(RichterIsolationGuard.markedInCurrentContext());
        }
    }

    @Test
    void decidesWithTheMarkerAndTheLoadedConfiguration(@TempDir Path dir) throws IOException {
        IsolationConfigSource source = loaded(dir);

        assertEquals(ExitDecision.PASS, new RichterIsolationGuard(source, () -> false).decideHttp("GET", "x", 80, "/"));
        assertInstanceOf(ExitDecision.Refuse.class, new RichterIsolationGuard(source, () -> true).decideHttp("GET", "x", 80, "/"));
        assertEquals(ExitDecision.PASS, new RichterIsolationGuard(source, () -> true).decideHttp("GET", "a.internal", 80, "/"));
    }

    @Test
    void decidesAnHttpCallBuiltMarkedAsMarkedWhereverItIsSent(@TempDir Path dir) throws IOException {
        RichterIsolationGuard unmarkedHere = new RichterIsolationGuard(loaded(dir), () -> false);

        assertInstanceOf(ExitDecision.Refuse.class, unmarkedHere.decideHttp("GET", "x", 80, "/", true));
        assertEquals(ExitDecision.PASS, unmarkedHere.decideHttp("GET", "a.internal", 80, "/", true));
        assertEquals(ExitDecision.PASS, unmarkedHere.decideHttp("GET", "x", 80, "/", false));
        assertInstanceOf(ExitDecision.Refuse.class, new RichterIsolationGuard(notLoaded(), () -> false)
                .decideHttp("GET", "a.internal", 80, "/", true));
    }

    @Test
    void decidesAwsSdkCallsWhenMarkedOnlyRefusesThemBeforeADocumentAndNotTheSdksOwnCallsInsideADecidedOne(
            @TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("i.json"), """
                {"scope": [], "mocks": [], "shadows": [{"kind": "dynamodb", "production": "orders",
                 "shadow": "orders_shadow", "service": "shop"}]}""");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        RichterIsolationGuard marked = new RichterIsolationGuard(source, () -> true);

        assertEquals(ShadowDecision.UNTOUCHED,
                new RichterIsolationGuard(source, () -> false).decideAwsSdk("dynamodb", "PutItem", "orders"));
        assertEquals(ShadowDecision.shadow("orders_shadow", "orders_shadow"),
                marked.decideAwsSdk("dynamodb", "PutItem", "orders"));
        assertEquals("Richter isolation refused a marked call to exit 'dynamodb PutItem orders': "
                + HttpExitPolicy.NOT_LOADED, new RichterIsolationGuard(notLoaded(), () -> true)
                .decideAwsSdk("dynamodb", "PutItem", "orders").refusal());
        assertInstanceOf(ExitDecision.Refuse.class, marked.decideHttp("POST", "dynamodb.eu-west-1.amazonaws.com", 443,
                "/"), "an SDK call no module decided is refused at its HTTP client");
        try (MarkerScope decided = marked.decidedClient("aws-sdk")) {
            assertEquals(ExitDecision.PASS, marked.decideHttp("POST", "dynamodb.eu-west-1.amazonaws.com", 443, "/"),
                    "the HTTP exchange of a decided call");
            assertEquals(ShadowDecision.UNTOUCHED, marked.decideAwsSdk("sts", "AssumeRoleWithWebIdentity", ""));
            assertEquals(ShadowDecision.UNTOUCHED, marked.decideAwsSdk("sqs", "SendMessage", "q"),
                    "a call the SDK makes while running a decided one");
        }
        assertTrue(marked.decideAwsSdk("sqs", "SendMessage", "q").refused());
    }

    @Test
    void aMarkerThatCannotBeReadLetsTheCallPassRatherThanThrowing() {
        RichterIsolationGuard guard = new RichterIsolationGuard(notLoaded(), () -> {
            throw new IllegalStateException("boom");
        });

        assertEquals(ExitDecision.PASS, guard.decideHttp("GET", "x", 80, "/"));
    }

    @Test
    void makesAnInboundRequestsMarkerCurrentWhenTheContextLacksIt() {
        RichterIsolationGuard guard = new RichterIsolationGuard(notLoaded(), RichterIsolationGuard::markedInCurrentContext);

        try (MarkerScope scope = guard.markInbound("a=b,richter-loadtest=1")) {
            assertTrue(RichterIsolationGuard.markedInCurrentContext());
        }
        assertFalse(RichterIsolationGuard.markedInCurrentContext());
        try (MarkerScope scope = guard.markInbound("richter-loadtest=0")) {
            assertFalse(RichterIsolationGuard.markedInCurrentContext());
        }
    }

    @Test
    void refusesMarkedInboundRequestsOnlyWhileNothingIsLoaded(@TempDir Path dir) throws IOException {
        RichterIsolationGuard before = new RichterIsolationGuard(notLoaded(), () -> false);
        RichterIsolationGuard after = new RichterIsolationGuard(loaded(dir), () -> false);

        assertTrue(before.inboundRefusal("a=b, richter-loadtest=1;p").orElseThrow()
                .startsWith("Richter isolation: isolation configuration not loaded (no source configured"));
        assertEquals(Optional.empty(), before.inboundRefusal(""));
        assertEquals(Optional.empty(), before.inboundRefusal("richter-loadtest=0"));
        assertEquals(Optional.empty(), after.inboundRefusal("richter-loadtest=1"));
    }

    @Test
    void aConnectionOfACallItsClientAlreadyReportedIsNotReportedAgainAtTheNetwork(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("i.json"),
                "{\"mode\":\"report\",\"scope\":[\"a.internal\"],\"mocks\":[]}");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        RichterIsolationGuard guard = new RichterIsolationGuard(source, () -> true);
        Tracer tracer = SdkTracerProvider.builder().build().get("test");

        Span client = tracer.spanBuilder("GET").setSpanKind(SpanKind.CLIENT).startSpan();
        try (Scope s = client.makeCurrent()) {
            assertInstanceOf(ExitDecision.WouldRefuse.class, guard.decideNetwork("x.example", "10.9.9.9", 443),
                    "no client decided it yet: the network reports it");
            ExitDecision byClient = guard.decideHttp("GET", "x.example", 443, "/customers");
            assertInstanceOf(ExitDecision.WouldRefuse.class, byClient);
            guard.record(byClient);
            assertEquals(ExitDecision.PASS, guard.decideNetwork("x.example", "10.9.9.9", 443),
                    "its connection is the call the client reported");
        } finally {
            client.end();
        }
        Span server = tracer.spanBuilder("GET /").setSpanKind(SpanKind.SERVER).startSpan();
        try (Scope s = server.makeCurrent()) {
            server.setAttribute(RichterIsolationGuard.WOULD_REFUSE, "an entry's report");
            assertInstanceOf(ExitDecision.WouldRefuse.class, guard.decideNetwork("x.example", "10.9.9.9", 443),
                    "a report on an entry says nothing of a connection below it");
        } finally {
            server.end();
        }
    }

    private static final String KEY = MarkerProof.newKey();

    private static IsolationConfigSource signed(Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("signed.json"), "{\"scope\":[\"a.internal\"],\"mocks\":[],"
                + "\"marker\":{\"team\":\"shop-team\",\"keys\":[\"" + KEY + "\"]}}");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        return source;
    }

    @Test
    void aMarkerWhoseProofVerifiesIsMarkedWorkAndEveryOtherRunsAsProduction(@TempDir Path dir) throws IOException {
        RichterIsolationGuard guard = new RichterIsolationGuard(signed(dir), RichterIsolationGuard::markedInCurrentContext);
        long now = System.currentTimeMillis() / 1000;
        String valid = MarkerProof.mint(KEY, "shop-team", "run-1", now + 600);
        String[][] forgeries = {
                {"richter-loadtest=1", "missing"},
                {"richter-loadtest=1,richter-proof=r1.x", "malformed"},
                {"richter-loadtest=1,richter-proof=" + MarkerProof.mint(KEY, "shop-team", "run-1", now - 3600),
                        "expired: run run-1 of team shop-team"},
                {"richter-loadtest=1,richter-proof=" + MarkerProof.mint(KEY, "other-team", "run-9", now + 600),
                        "other team: run run-9 of team other-team"},
                {"richter-loadtest=1,richter-proof=" + MarkerProof.mint(MarkerProof.newKey(), "shop-team", "run-1", now + 600),
                        "bad signature: run run-1 of team shop-team"}};
        Tracer tracer = SdkTracerProvider.builder().build().get("test");
        for (String[] forged : forgeries) {
            Span server = tracer.spanBuilder("POST /orders").setSpanKind(SpanKind.SERVER).startSpan();
            try (Scope s = server.makeCurrent(); MarkerScope inbound = guard.markInbound(forged[0])) {
                assertFalse(guard.marked(), forged[0]);
                assertEquals(ExitDecision.PASS, guard.decideHttp("POST", "api.stripe.com", 443, "/v1/charges"),
                        "production traffic reaches the real exit: " + forged[0]);
                assertEquals(forged[1], ((io.opentelemetry.sdk.trace.ReadableSpan) server).getAttribute(
                        io.opentelemetry.api.common.AttributeKey.stringKey(RichterIsolationGuard.FORGED)));
            } finally {
                server.end();
            }
        }
        assertEquals(forgeries.length, guard.forgedMarkers());
        // the agent's own server instrumentation may already have made the inbound baggage current: taken out again
        try (Scope agent = Baggage.builder().put("richter-loadtest", "1").build().makeCurrent();
             MarkerScope inbound = guard.markInbound("richter-loadtest=1")) {
            assertTrue(Baggage.current().getEntryValue("richter-loadtest") == null);
            assertFalse(guard.marked());
        }
        try (MarkerScope inbound = guard.markInbound("a=b, richter-loadtest=1, richter-proof=" + valid)) {
            assertTrue(guard.marked());
            assertEquals(valid, guard.markerProof(), "travels on with the marker");
            assertInstanceOf(ExitDecision.Refuse.class, guard.decideHttp("POST", "api.stripe.com", 443, "/v1/charges"));
        }
        assertEquals(forgeries.length + 1, guard.forgedMarkers());
    }

    @Test
    void aDocumentWithoutMarkerKeysAcceptsTheBareMarker(@TempDir Path dir) throws IOException {
        RichterIsolationGuard guard = new RichterIsolationGuard(loaded(dir), RichterIsolationGuard::markedInCurrentContext);
        try (MarkerScope inbound = guard.markInbound("richter-loadtest=1")) {
            assertTrue(guard.marked());
        }
        assertEquals(0, guard.forgedMarkers());
    }

    @Test
    void aMessagesMarkerIsAcceptedOnlyWithAProofTheKeysVerifyAndCountsNoForgery(@TempDir Path dir) throws IOException {
        RichterIsolationGuard guard = new RichterIsolationGuard(signed(dir), RichterIsolationGuard::markedInCurrentContext);
        long now = System.currentTimeMillis() / 1000;
        String valid = MarkerProof.mint(KEY, "shop-team", "run-1", now + 600);
        assertTrue(guard.acceptsMarker("a=b,richter-loadtest=1,richter-proof=" + valid));
        assertFalse(guard.acceptsMarker("richter-loadtest=1"), "no proof");
        assertFalse(guard.acceptsMarker("richter-loadtest=1,richter-proof="
                + MarkerProof.mint(MarkerProof.newKey(), "shop-team", "run-1", now + 600)), "another key");
        assertFalse(guard.acceptsMarker("richter-loadtest=1,richter-proof="
                + MarkerProof.mint(KEY, "shop-team", "run-1", now - 3600)), "expired");
        assertFalse(guard.acceptsMarker("richter-proof=" + valid), "a proof without the marker");
        assertFalse(guard.acceptsMarker(""));
        assertEquals(0, guard.forgedMarkers(), "a record is not an inbound request");
        assertTrue(new RichterIsolationGuard(loaded(dir), () -> false).acceptsMarker("richter-loadtest=1"),
                "a document without keys accepts the bare marker");
        assertTrue(new RichterIsolationGuard(notLoaded(), () -> false).acceptsMarker("richter-loadtest=1"),
                "before a document loads the marker alone counts, as for marked calls");
    }

    @Test
    void topicShadowsAreTheLoadedDocumentsKindTopicEntries(@TempDir Path dir) throws IOException {
        assertEquals(Map.of(), new RichterIsolationGuard(notLoaded(), () -> false).topicShadows());
        Path file = Files.writeString(dir.resolve("topics.json"), "{\"scope\":[],\"mocks\":[],\"shadows\":["
                + "{\"kind\":\"topic\",\"production\":\"orders\",\"shadow\":\"orders-shadow\"}]}");
        IsolationConfigSource source = new IsolationConfigSource(new IsolationSettings(Optional.empty(), "",
                Optional.of(file), 30));
        assertTrue(source.refresh());
        assertEquals(Map.of("orders", "orders-shadow"), new RichterIsolationGuard(source, () -> false)
                .topicShadows());
    }
}
