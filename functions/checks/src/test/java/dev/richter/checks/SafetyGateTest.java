package dev.richter.checks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.links.source.DirectoryTraceSource;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.Exit;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.TraceDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SafetyGateTest {
    static final List<RegisteredService> SCOPE = List.of(new RegisteredService("t", "order", "http://o", "/h", null, List.of()),
            new RegisteredService("t", "inventory", "http://i", "/h", null, List.of()));
    static final String CONFIG = """
            {"traceSource": {"kind": "directory", "path": "/tmp/spans"},
             "exits": [{"service": "payment", "node": "payment POST /charge", "from": "inventory"}],
             "mocks": [{"exit": "payment POST /charge", "status": 200, "body": "{}", "latencyMs": 20}]}""";

    static byte[] resource(String name) throws IOException {
        try (InputStream in = SafetyGateTest.class.getResourceAsStream("/safety/" + name)) {
            return in.readAllBytes();
        }
    }

    /** A gate whose clock moves only when it sleeps. */
    static SafetyGate fakeTime(AtomicLong now, List<Long> sleeps) {
        return new SafetyGate(now::get, ms -> {
            sleeps.add(ms);
            now.addAndGet(ms);
        });
    }

    static List<String> names(List<CheckResult> r, Outcome o) {
        return r.stream().filter(c -> c.outcome() == o).map(CheckResult::name).toList();
    }

    @Test
    void configParsesExitsAsMockRequiredAndMocksInTheSdkFormat() {
        SafetyConfig c = SafetyConfig.parse(CONFIG);
        assertTrue(c.hasTraceSource());
        assertEquals("directory /tmp/spans", c.traceSource().describe());
        Exit e = c.exits().get(0);
        assertTrue(e.mockRequired());
        assertEquals("payment POST /charge", e.toNode());
        assertEquals(20, c.mocks().get(0).latencyMs());
        assertEquals("payment", SafetyConfig.parse("{\"exits\":[{\"service\":\"payment\"}]}").exits().get(0).toNode());
    }

    @Test
    void staticChecksWarnWithoutConfigurationAndFailAMissingMock() {
        List<RegisteredService> services = List.of(new RegisteredService("t", "order", "http://x", "/h", null, List.of()));
        List<CheckResult> none = SafetyGate.staticChecks("t", SafetyConfig.NONE, false, services, List.of(), Map.of());
        assertEquals(List.of(SafetyGate.CONFIG_CHECK, "discovered-datastores"), names(none, Outcome.WARN));
        assertEquals(List.of(), names(none, Outcome.FAIL));

        SafetyConfig c = SafetyConfig.parse(CONFIG);
        assertEquals(List.of(), names(SafetyGate.staticChecks("t", c, true, services, c.exits(), Map.of()), Outcome.FAIL));
        SafetyConfig noMock = SafetyConfig.parse(CONFIG.replace("\"payment POST /charge\", \"status\"", "\"other\", \"status\""));
        assertEquals(List.of("mock-present"), names(SafetyGate.staticChecks("t", noMock, true, services, noMock.exits(), Map.of()), Outcome.FAIL));
    }

    @Test
    void withoutTraceSourceTheDynamicChecksOnlyWarn() {
        List<CheckResult> r = new SafetyGate().dynamicChecks("t", SafetyConfig.NONE, null, "", SCOPE, List.of(), 0, 0, 10, "pre-test");
        assertEquals(1, r.size());
        assertEquals(Outcome.WARN, r.get(0).outcome());
        assertTrue(r.get(0).evidence().contains("no trace source configured"), r.get(0).evidence());
    }

    @Test
    void brokenAsyncMarkerFailsOnTheInventoryToPaymentEdge(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("spans.json"), resource("shop-broken-async-marker.otlp.json"));
        AtomicLong now = new AtomicLong(System.currentTimeMillis());
        List<Long> sleeps = new ArrayList<>();
        List<CheckResult> r = fakeTime(now, sleeps).dynamicChecks("t", SafetyConfig.NONE, new DirectoryTraceSource(dir), "",
                SCOPE, List.of(), 1796029011356L, 1796029014597L, 2, "pre-test");
        // the capture's JVMs ran without Richter's extension: no proof that isolation is on
        assertEquals(List.of("marker-propagation", "isolation-enforced"), names(r, Outcome.FAIL), r.toString());
        assertTrue(r.stream().anyMatch(c -> c.evidence().contains("edge inventory->payment")), r.toString());
        assertEquals(List.of(), sleeps, "the window ended long ago: no wait");
    }

    @Test
    void realPaymentCallFailsTheMockedExitCheckNamingTheTrace(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("spans.json"), resource("shop-healthy.otlp.json"));
        SafetyConfig c = SafetyConfig.parse(CONFIG);
        List<CheckResult> r = new SafetyGate().dynamicChecks("t", c, new DirectoryTraceSource(dir), "", SCOPE, c.exits(),
                1796028987349L, 1796028990092L, 2, "pre-test");
        // the capture's JVMs ran without Richter's extension: no proof that isolation is on
        assertEquals(List.of("mocked-exit", "isolation-enforced"), names(r, Outcome.FAIL), r.toString());
        CheckResult m = r.stream().filter(x -> x.name().equals("mocked-exit")).findFirst().orElseThrow();
        assertTrue(m.evidence().matches("(?s).*trace [0-9a-f]{32}.*"), m.evidence());
    }

    @Test
    void theSpansAGateReadAreHandedOnSoTheRunRecordsTheirDatastores(@TempDir Path dir) throws IOException {
        Files.write(dir.resolve("spans.json"), resource("shop-healthy.otlp.json"));
        SafetyConfig c = SafetyConfig.parse(CONFIG);
        List<String> got = new ArrayList<>();
        new SafetyGate().withSpansRead((team, spans) -> got.add(team + ": " + spans.size())).dynamicChecks("t", c,
                new DirectoryTraceSource(dir), "", SCOPE, c.exits(), 1796028987349L, 1796028990092L, 2, "pre-test");
        assertEquals(1, got.size(), got.toString());
        assertTrue(got.get(0).startsWith("t: ") && !got.get(0).equals("t: 0"), got.toString());
        List<CheckResult> despite = new SafetyGate().withSpansRead((team, spans) -> {
            throw new IllegalStateException("links table unavailable");
        }).dynamicChecks("t", c, new DirectoryTraceSource(dir), "", SCOPE, c.exits(), 1796028987349L, 1796028990092L, 2,
                "pre-test");
        assertTrue(despite.stream().anyMatch(r -> r.name().equals("mocked-exit")), "a recorder that fails costs no check");
    }

    @Test
    void waitsForTheExporterThenPollsUntilMarkedSpansArriveOrGivesUp() throws IOException {
        List<Span> all = TraceDocuments.parse("x", resource("shop-healthy.otlp.json")).spans();
        AtomicLong now = new AtomicLong(1_000_000);
        List<Long> sleeps = new ArrayList<>();
        int[] reads = {0};
        TraceSource arrivesOnThirdRead = new TraceSource() {
            @Override
            public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
                return TraceRead.of(++reads[0] < 3 ? List.of() : all);
            }

            @Override
            public String describe() {
                return "fake";
            }
        };
        List<CheckResult> r = fakeTime(now, sleeps).dynamicChecks("t", SafetyConfig.NONE, arrivesOnThirdRead, "", SCOPE,
                List.of(), 990_000, 1_000_000, 6, "pre-test");
        assertEquals(List.of(SafetyGate.FLUSH_ALLOWANCE_MS, SafetyGate.POLL_INTERVAL_MS, SafetyGate.POLL_INTERVAL_MS), sleeps);
        assertEquals(Outcome.PASS, r.get(0).outcome(), r.toString());

        TraceSource empty = new TraceSource() {
            @Override
            public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
                return TraceRead.of(List.of());
            }

            @Override
            public String describe() {
                return "empty";
            }
        };
        long start = now.get();
        List<CheckResult> none = fakeTime(now, sleeps).dynamicChecks("t", SafetyConfig.NONE, empty, "", SCOPE, List.of(),
                start - 10, start, 6, "pre-test");
        assertEquals(List.of(SafetyGate.TRACE_SOURCE_CHECK), names(none, Outcome.FAIL), none.toString());
        assertTrue(now.get() - start <= SafetyGate.FLUSH_ALLOWANCE_MS + SafetyGate.MAX_MARKED_WAIT_MS + SafetyGate.POLL_INTERVAL_MS);
    }

    @Test
    void partsTheSourceCouldNotReadFailTheTraceSourceByPositionAndTheOtherChecksJudgeTheRest() throws IOException {
        List<Span> all = TraceDocuments.parse("x", resource("shop-healthy.otlp.json")).spans();
        List<String> unreadable = List.of("inventory.log:3: resourceSpans[0].scopeSpans[0].spans[0].spanId: expected 16 hex"
                + " characters", "trace 1-5f000000-0000000000000000000000bd: id: not 16 hex digits");
        TraceSource partly = new TraceSource() {
            @Override
            public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
                return new TraceRead(all, unreadable);
            }

            @Override
            public String describe() {
                return "partly";
            }
        };
        AtomicLong now = new AtomicLong(1_000_000);
        List<CheckResult> r = fakeTime(now, new ArrayList<>()).dynamicChecks("t", SafetyConfig.NONE, partly, "", SCOPE,
                List.of(), 990_000, 1_000_000, 6, "pre-test");
        CheckResult source = r.get(0);
        assertEquals(SafetyGate.TRACE_SOURCE_CHECK, source.name());
        assertEquals(Outcome.FAIL, source.outcome(), "what was not read is missing evidence: " + source);
        assertTrue(source.evidence().contains("2 parts of the source could not be read: " + unreadable.get(0) + "; "
                + unreadable.get(1)), source.evidence());

        TraceSource whole = new TraceSource() {
            @Override
            public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
                return TraceRead.of(all);
            }

            @Override
            public String describe() {
                return "partly";
            }
        };
        List<CheckResult> wholeRead = fakeTime(now, new ArrayList<>()).dynamicChecks("t", SafetyConfig.NONE, whole, "",
                SCOPE, List.of(), 990_000, 1_000_000, 6, "pre-test");
        assertEquals(Outcome.PASS, wholeRead.get(0).outcome(), wholeRead.get(0).toString());
        assertEquals(wholeRead.subList(1, wholeRead.size()), r.subList(1, r.size()),
                "every other check still ran, on the spans that were read");
        assertTrue(r.size() > 3, r.toString());
    }

    @Test
    void unreadableTextCountsThePartsBeyondTheListedOnes() {
        List<String> many = new ArrayList<>();
        for (int i = 1; i <= 25; i++) {
            many.add("f.log:" + i + ": bad");
        }
        assertTrue(SafetyGate.unreadableText(new TraceRead(List.of(), many)).startsWith("25 parts of the source could not be read: f.log:1: bad;"));
        assertTrue(SafetyGate.unreadableText(new TraceRead(List.of(), many)).endsWith("f.log:20: bad; ... and 5 more"));
        assertTrue(SafetyGate.unreadableText(new TraceRead(List.of(), List.of("a:1: x"))).startsWith("1 part of"));
    }
}
