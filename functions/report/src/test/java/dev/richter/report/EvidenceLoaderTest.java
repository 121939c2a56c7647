package dev.richter.report;

import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import dev.richter.common.model.HistogramCodec;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WindowKey;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.graph.ClosurePair;
import dev.richter.links.graph.Dimension;
import dev.richter.links.source.TraceRead;
import dev.richter.links.source.TraceSource;
import dev.richter.links.store.LinkRepository;
import dev.richter.links.store.StoredEdge;
import dev.richter.links.trace.InstrumentationScope;
import dev.richter.links.trace.Span;
import dev.richter.links.trace.SpanKind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;


/** The report's reads, against an in-memory DynamoDB laid out as the other functions write it. */
class EvidenceLoaderTest {
    private static final TableNames TABLES = TableNames.fromEnv();

    private final FakeDynamo ddb = new FakeDynamo();
    private final Repositories repositories = new Repositories(ddb.client, TABLES);
    private final List<Span> spans = new ArrayList<>();
    private final EvidenceLoader loader = new EvidenceLoader(new RunEvidenceRepository(repositories),
            new LinkRepository(ddb.client, TABLES.links()),
            team -> List.of(new RegisteredService(team, "order", "http://127.0.0.1:18081", "/health", "", List.of()),
                    new RegisteredService(team, "inventory", "http://127.0.0.1:18082", "/health", "", List.of())),
            spec -> new TraceSource() {
                @Override
                public TraceRead read(String teamId, long fromEpochMs, long toEpochMs) {
                    return TraceRead.of(spans.stream().filter(s -> s.startEpochNanos() / 1_000_000 >= fromEpochMs
                            && s.startEpochNanos() / 1_000_000 <= toEpochMs).toList());
                }

                @Override
                public String describe() {
                    return "directory " + spec.path();
                }
            });

    private void metric(String sk, String attribute, AttributeValue value) {
        ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"), "sk", AttributeValue.fromS(sk), attribute, value));
    }

    private void window(String stage, int step, long second, int worker, long count, long errors, long latencyMs) {
        Histogram h = HistogramCodec.newLatencyHistogramUs();
        h.recordValueWithCount(latencyMs * 1000, count);
        ddb.put(TABLES.runMetrics(), Map.of("runId", AttributeValue.fromS("run-1"),
                "sk", AttributeValue.fromS(WindowKey.sortKey(stage, step, second, worker, 0)),
                WindowAttributes.COUNT, AttributeValue.fromN(Long.toString(count)),
                WindowAttributes.ERRORS, AttributeValue.fromN(Long.toString(errors)),
                WindowAttributes.HIST, AttributeValue.fromS(HistogramCodec.encode(h))));
    }

    /** The shop's links as the link builder writes them (its repository, same table). */
    private void links() {
        LinkRepository links = new LinkRepository(ddb.client, TABLES.links());
        links.writeEntries("t1", Dimension.INTERFACE, List.of(CallGraphTest.ENTRY, "order GET /actuator/health"), Map.of(), 1);
        links.writePairs("t1", Dimension.INTERFACE, List.of(
                new ClosurePair(CallGraphTest.ENTRY, CallGraphTest.RESERVE, 1, 1, 300, 1, CallGraphTest.ENTRY),
                new ClosurePair(CallGraphTest.ENTRY, CallGraphTest.FRAUD, 2, 1, 0, 1, CallGraphTest.RESERVE)));
        links.writeEdges("t1", Dimension.INTERFACE, List.of(
                new StoredEdge(CallGraphTest.ENTRY, CallGraphTest.RESERVE, "order", "inventory", 300, 1),
                new StoredEdge(CallGraphTest.RESERVE, CallGraphTest.FRAUD, "inventory", "fraud", 12, 1)));
    }

    private List<WorkerResult> results() {
        List<WorkerResult> rs = Fixtures.healthyUpTo(1);
        return rs;
    }

    @Test
    void readsEveryPartAsTheOtherFunctionsStoreIt() {
        long pre = Fixtures.startOf("pre-test", 0) / 1000;
        long f0 = Fixtures.startOf("formal", 0) / 1000;
        for (int s = 0; s < 10; s++) {
            window("pre-test", 0, pre + s, 0, 2, 0, 5);
            window("formal", 0, f0 + s, 0, 10, 0, 10);
            window("formal", 0, f0 + s, 1, 10, 1, 12);
        }
        OverloadResponses.Recorder rec = new OverloadResponses.Recorder();
        rec.record(503, "1", null, 2_000, Fixtures.T0);
        OverloadResponses o = rec.snapshot("run-1", "formal", 0, 0, 1);
        metric(o.sortKey(), OverloadResponses.ATTRIBUTE, AttributeValue.fromS(Json.write(o)));
        var started = new StepPlan("run-1", "t1", "plan-1", "formal", 0, 20, 10, 50, 2, Fixtures.startOf("formal", 0),
                10_000, 1, 2000, 2000, 100);
        metric(started.sortKey(), "step", AttributeValue.fromS(Json.write(started)));
        repositories.putRegistryDoc("t1", RunEvidenceRepository.SAFETY_ITEM, Map.of("traceSource", Map.of("kind", "directory",
                "path", "/tmp/spans"), "exits", List.of(Map.of("service", "payment", "node", CallGraphTest.CHARGE, "from", "inventory"))));
        links();
        spans.addAll(Fixtures.trace("4bf92f3577b34da6a3ce929d0e0e4736", "order", "POST /orders", Fixtures.startOf("formal", 0) + 500,
                30, 2, "inventory"));

        ReportEvidence e = loader.load(Fixtures.RUN, Fixtures.PLAN, results(), Fixtures.CLEAN_DYNAMIC, Long.MAX_VALUE);

        assertEquals(List.of(started), e.startedSteps());
        TimeSeries ts = e.timeSeries();
        assertEquals(21, ts.epochS().size(), "10 pre-test seconds, a gap row, 10 formal seconds");
        assertEquals(2.0, ts.achievedQps().get(0));
        assertEquals(20.0, ts.achievedQps().get(11), "two workers' windows of a second summed");
        assertEquals(1.0, ts.errorsPerS().get(11));
        assertEquals(20.0, ts.targetQps().get(11));
        assertEquals(List.of(o), e.overload());
        assertTrue(e.traces().read());
        assertEquals("directory /tmp/spans", e.traces().source());
        assertEquals(2.0, e.traces().step("formal", 0).orElseThrow().callsPerRequest());
        CallGraph g = e.callGraph();
        assertTrue(g.read());
        assertEquals(List.of(CallGraphTest.ENTRY), g.entries());
        assertEquals(List.of(CallGraphTest.ENTRY, CallGraphTest.RESERVE, CallGraphTest.FRAUD, CallGraphTest.CHARGE),
                g.nodes().stream().map(CallGraph.Node::id).toList(), "the configured mocked exit joins the graph");
        assertTrue(CallGraphTest.find(g, CallGraphTest.RESERVE, CallGraphTest.FRAUD).highlighted(), "fraud is not registered: a real exit");
    }

    @Test
    void aPartThatCannotBeReadIsSaidAndTheRestStillComes() {
        window("formal", 0, Fixtures.startOf("formal", 0) / 1000, 0, 10, 0, 10);
        ddb.failing.add(TABLES.links());
        ddb.failing.add(TABLES.registry());
        ReportEvidence e = loader.load(Fixtures.RUN, Fixtures.PLAN, results(), List.of(), Long.MAX_VALUE);
        assertFalse(e.callGraph().read());
        assertEquals("the links table could not be read (see the report function's log)", e.callGraph().note());
        assertFalse(e.traces().read());
        assertEquals(1, e.timeSeries().epochS().size());
        Report r = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, results(), List.of(), List.of(), List.of(), List.of(), e, null, 1);
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<p>Not available: the links table could not be read (see the report function&#39;s log).</p>"), html);
        assertEquals(Report.Status.NOT_OBSERVED, r.resilience().of(ResilienceVerdict.RETRIES).status());
    }

    /** The demo ingests its spans after the run: until then the graph comes from the run's own traces, and says so. */
    @Test
    void withoutLinksYetTheGraphIsDrawnFromTheRunsTraces() {
        repositories.putRegistryDoc("t1", RunEvidenceRepository.SAFETY_ITEM, Map.of("traceSource", Map.of("kind", "directory",
                "path", "/tmp/spans")));
        List<Span> trace = new ArrayList<>(Fixtures.trace("4bf92f3577b34da6a3ce929d0e0e4736", "order", "POST /orders",
                Fixtures.startOf("formal", 0) + 500, 30, 1, "inventory"));
        Span client = trace.get(1);
        trace.add(new Span(client.traceId(), "00f067aa0ba902b7", client.spanId(), List.of(), "inventory", "POST /reserve",
                dev.richter.links.trace.SpanKind.SERVER, "", Map.of("richter-loadtest", "1"), client.startEpochNanos(), 500_000));
        spans.addAll(trace);
        CallGraph g = loader.load(Fixtures.RUN, Fixtures.PLAN, results(), Fixtures.CLEAN_DYNAMIC, Long.MAX_VALUE).callGraph();
        assertEquals(List.of(CallGraphTest.ENTRY), g.entries());
        assertEquals(List.of(), g.entriesWithoutTraces());
        assertEquals(List.of(CallGraphTest.ENTRY, CallGraphTest.RESERVE), g.nodes().stream().map(CallGraph.Node::id).toList());
        assertEquals(1, CallGraphTest.find(g, CallGraphTest.ENTRY, CallGraphTest.RESERVE).calls());
        assertTrue(g.note().startsWith("drawn from the run's sampled traces"), g.note());
    }

    /**
     * The report lists each scope service's middleware from the run's traces, JSON and HTML: order's marked call to
     * inventory has no instrumentation scope (an HTTP client no row names, unguarded; inventory's SERVER span under it
     * proves isolation, so it is vouched for), and its marked Redis call went through Redisson (a store, unguarded: FAIL).
     */
    @Test
    void theRunsTracesListEachScopeServicesMiddlewareInJsonAndHtml() {
        repositories.putRegistryDoc("t1", RunEvidenceRepository.SAFETY_ITEM, Map.of("traceSource", Map.of("kind", "directory",
                "path", "/tmp/spans")));
        List<Span> trace = new ArrayList<>(Fixtures.trace("4bf92f3577b34da6a3ce929d0e0e4736", "order", "POST /orders",
                Fixtures.startOf("formal", 0) + 500, 30, 1, "inventory"));
        Span root = trace.get(0);
        Span client = trace.get(1);
        trace.add(new Span(client.traceId(), "00f067aa0ba902b7", client.spanId(), List.of(), "inventory", "POST /reserve",
                SpanKind.SERVER, "", Map.of("richter-loadtest", "1", "richter.isolation.active", "true"),
                client.startEpochNanos(), 500_000, new InstrumentationScope("io.opentelemetry.tomcat-10.0", "2.22.0-alpha")));
        trace.add(new Span(root.traceId(), "00f067aa0ba902b8", root.spanId(), List.of(), "order", "SET", SpanKind.CLIENT,
                "redis", Map.of("db.system", "redis"), root.startEpochNanos() + 2_000_000, 100_000,
                new InstrumentationScope("io.opentelemetry.redisson-3.17", "2.22.0-alpha")));
        spans.addAll(trace);
        ReportEvidence e = loader.load(Fixtures.RUN, Fixtures.PLAN, results(), Fixtures.CLEAN_DYNAMIC, Long.MAX_VALUE);
        Report r = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, results(), List.of(), List.of(), List.of(), List.of(), e, null, 1);
        assertEquals(List.of(
                new Report.ServiceMiddleware("inventory", "Tomcat (jakarta Servlet)", "10.0+", "server",
                        "io.opentelemetry.tomcat-10.0 2.22.0-alpha", "", true, true, 1, 1, "guarded"),
                new Report.ServiceMiddleware("order", "server (instrumentation not named)", "", "server", "", "", false, true,
                        1, 1, "server not gated"),
                new Report.ServiceMiddleware("order", "HTTP client (instrumentation not named)", "", "http-client", "", "",
                        false, true, 1, 1, "unguarded, but every marked call went to an in-scope service that enforces isolation"),
                new Report.ServiceMiddleware("order", "Redisson", "3.17+", "store", "io.opentelemetry.redisson-3.17 2.22.0-alpha",
                        "redis", false, true, 1, 1, "unguarded on marked traffic")), r.middleware());
        String json = dev.richter.common.Json.write(r);
        assertTrue(json.contains("\"middleware\":[{\"service\":\"inventory\",\"library\":\"Tomcat (jakarta Servlet)\""), json);
        String html = HtmlReport.render(r);
        assertTrue(html.contains("<h2>Middleware per service</h2>"), html);
        assertTrue(html.contains("<tr><td class=l>order</td><td class=l>Redisson</td><td class=l>3.17+</td><td class=l>store</td>"
                + "<td class=l>io.opentelemetry.redisson-3.17 2.22.0-alpha</td><td class=l>redis</td><td class=l>no</td><td>1</td>"
                + "<td>1</td><td class=\"l FAIL\">unguarded on marked traffic</td></tr>"), html);
    }

    @Test
    void noTraceSourceConfiguredIsNamed() {
        ReportEvidence e = loader.load(Fixtures.RUN, Fixtures.PLAN, results(), List.of(), Long.MAX_VALUE);
        assertEquals("no trace source configured for team t1 (PUT /safety traceSource)", e.traces().note());
        assertTrue(e.callGraph().read());
        assertEquals(List.of("order POST /orders"), e.callGraph().entriesWithoutTraces(), "the plan's entry has no links");
        assertTrue(e.timeSeries().isEmpty());
    }

    @Test
    void aReportTooBigForItsItemDropsTheSeriesFromTheJsonFirst() {
        List<Long> t = new ArrayList<>();
        List<Double> v = new ArrayList<>();
        for (int i = 0; i < 2_500; i++) {
            t.add(1_796_000_000L + i);
            v.add(12.345678 + i);
        }
        TimeSeries big = new TimeSeries(1, t, v, v, v, v, v, v, Map.of(), "completed", List.of(), "");
        Report r = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, Fixtures.healthyUpTo(3), List.of(), Fixtures.CLEAN_DYNAMIC,
                List.of(), List.of(), new ReportEvidence(List.of(), big, List.of(), null, null), null, 1);
        RunReporter.Fitted fitted = RunReporter.fit(r);
        assertTrue(fitted.report().timeSeries().isEmpty());
        assertTrue(fitted.report().timeSeries().note().startsWith("the time series was left out of the stored JSON"));
        assertTrue(fitted.html().contains("\"epochS\":[1796000000,"), "the page keeps it");
        int bytes = Json.write(fitted.report()).length() + fitted.html().length();
        assertTrue(bytes <= ReportRepository.MAX_ITEM_BYTES, bytes + " bytes");
        Report small = ReportBuilder.build(Fixtures.RUN, Fixtures.PLAN, Fixtures.healthyUpTo(3), List.of(), Fixtures.CLEAN_DYNAMIC,
                List.of(), null, 1);
        assertEquals(small, RunReporter.fit(small).report());
    }
}
