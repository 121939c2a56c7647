package dev.richter.report;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.OverloadResponses;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WindowAttributes;
import dev.richter.common.model.WindowKey;
import dev.richter.common.model.WorkerKey;
import dev.richter.common.model.WorkerResult;
import dev.richter.links.source.TraceSourceSpec;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ObjLongConsumer;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import software.amazon.awssdk.services.dynamodb.model.QueryRequest;

/**
 * What the report reads beyond results, checks and verdicts: from the run-metrics table (pk {@code runId}, sk
 * {@code sk}) the load driver's windows ({@code window#...}, attributes {@link WindowAttributes}), its 429/503 records
 * ({@code overload#...}, attribute {@value OverloadResponses#ATTRIBUTE}) and the started steps ({@code step#...},
 * attribute {@code step}); from the registry table the team's safety configuration (item {@value #SAFETY_ITEM}, attribute
 * {@code doc}: its {@code traceSource} and mock-required {@code exits}). Every query pages through its results.
 */
public final class RunEvidenceRepository {
    /** Registry item of a team's safety configuration (written by {@code PUT /safety}). */
    public static final String SAFETY_ITEM = Repositories.SAFETY_CONFIG_KEY;

    private final Repositories repositories;

    /** @param repositories the tables and the client */
    public RunEvidenceRepository(Repositories repositories) {
        this.repositories = repositories;
    }

    /**
     * Streams every window of the run, in sort-key order (stage, step, second, worker, leg), to {@code sink}.
     *
     * @param deadlineMs epoch ms after which reading stops (the Lambda's time is running out)
     * @return true when every window was read, false when the deadline cut the reading short
     */
    public boolean windows(String runId, long deadlineMs, Consumer<TimeSeries.StoredWindow> sink) {
        return windows(runId, deadlineMs, sink, (worker, sent) -> { });
    }

    /**
     * {@link #windows(String, long, Consumer)}, also handing each window's requests sent to {@code sentByWorker} with
     * its worker (stage, step, leg, worker from the window's key).
     */
    public boolean windows(String runId, long deadlineMs, Consumer<TimeSeries.StoredWindow> sink,
                           ObjLongConsumer<WorkerKey> sentByWorker) {
        Map<String, AttributeValue> start = null;
        do {
            if (System.currentTimeMillis() > deadlineMs) {
                return false;
            }
            var resp = repositories.dynamoDb().query(query(runId, "window#").exclusiveStartKey(start).build());
            for (Map<String, AttributeValue> item : resp.items()) {
                String sk = item.get("sk").s();
                String[] parts = sk.split("#");
                Map<String, Long> optional = new LinkedHashMap<>();
                for (String k : WindowAttributes.ERROR_KINDS) {
                    if (item.containsKey(k)) {
                        optional.put(k, num(item.get(k)));
                    }
                }
                if (item.containsKey(WindowAttributes.SENT)) {
                    optional.put(WindowAttributes.SENT, num(item.get(WindowAttributes.SENT)));
                    if (parts.length >= 6) {
                        sentByWorker.accept(new WorkerKey(parts[1], Integer.parseInt(parts[2]),
                                Integer.parseInt(parts[5]), Integer.parseInt(parts[4])), num(item.get(WindowAttributes.SENT)));
                    }
                }
                sink.accept(new TimeSeries.StoredWindow(parts[1], Integer.parseInt(parts[2]), WindowKey.epochSecond(sk),
                        num(item.get(WindowAttributes.COUNT)), num(item.get(WindowAttributes.ERRORS)),
                        item.containsKey(WindowAttributes.HIST) ? item.get(WindowAttributes.HIST).s() : "", optional));
            }
            start = resp.hasLastEvaluatedKey() && !resp.lastEvaluatedKey().isEmpty() ? resp.lastEvaluatedKey() : null;
        } while (start != null);
        return true;
    }

    /** The load driver's 429/503 records of the run; empty when it stored none. */
    public List<OverloadResponses> overload(String runId) {
        List<OverloadResponses> out = new ArrayList<>();
        repositories.dynamoDb().queryPaginator(query(runId, OverloadResponses.PREFIX).build()).items()
                .forEach(i -> out.add(Json.read(i.get(OverloadResponses.ATTRIBUTE).s(), OverloadResponses.class)));
        return out;
    }

    /** The stored plans of the run's started steps, by stage and step. */
    public List<StepPlan> startedSteps(String runId) {
        List<StepPlan> out = new ArrayList<>();
        repositories.dynamoDb().queryPaginator(query(runId, "step#").build()).items()
                .forEach(i -> out.add(Json.read(i.get("step").s(), StepPlan.class)));
        return out;
    }

    /**
     * The parts of a team's safety configuration the report uses.
     *
     * @param traceSource   where the team's spans are read; kind {@code ""} when none is configured
     * @param requiredExits the mock-required exits
     * @param configured    false when the team stored no configuration
     */
    public record Safety(TraceSourceSpec traceSource, List<CallGraph.RequiredExit> requiredExits, boolean configured) {}

    /** The team's safety configuration (no configuration: no trace source, no exits). */
    public Safety safety(String teamId) {
        List<String> docs = repositories.latestRegistryDocs(teamId, SAFETY_ITEM, 1);
        if (docs.isEmpty()) {
            return new Safety(new TraceSourceSpec("", "", "", ""), List.of(), false);
        }
        JsonNode d = Json.read(docs.get(0), JsonNode.class);
        JsonNode ts = d.path("traceSource");
        List<CallGraph.RequiredExit> exits = new ArrayList<>();
        for (JsonNode e : d.path("exits")) {
            String service = e.path("service").asText("").trim();
            if (!service.isEmpty()) {
                String node = e.path("node").asText(service).trim();
                exits.add(new CallGraph.RequiredExit(e.path("from").asText("").trim(), service, node.isEmpty() ? service : node));
            }
        }
        return new Safety(new TraceSourceSpec(ts.path("kind").asText(""), ts.path("path").asText(""),
                ts.path("bucket").asText(""), ts.path("prefix").asText("")), exits, true);
    }

    private QueryRequest.Builder query(String runId, String prefix) {
        return QueryRequest.builder().tableName(repositories.tables().runMetrics())
                .keyConditionExpression("runId = :r AND begins_with(sk, :p)")
                .expressionAttributeValues(Map.of(":r", AttributeValue.fromS(runId), ":p", AttributeValue.fromS(prefix)));
    }

    private static long num(AttributeValue v) {
        return v == null || v.n() == null ? 0 : Long.parseLong(v.n());
    }
}
