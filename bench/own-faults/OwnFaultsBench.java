import com.fasterxml.jackson.databind.JsonNode;
import com.nimbusds.jose.JWSAlgorithm;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.TableNames;
import dev.richter.runs.RunLeases;
import dev.richter.local.ApiClient;
import dev.richter.local.FakeTarget;
import dev.richter.local.LocalAwsStack;
import dev.richter.local.LocalFaults;
import dev.richter.local.LocalLimits;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.services.sfn.SfnClient;
import software.amazon.awssdk.services.sfn.model.StopExecutionRequest;

/**
 * Richter's own faults, cell by cell, on the local stack under compressed limits (bench/own-faults.sh).
 *
 * <p>Every cell runs one plan against its own target on loopback (pre-test 2 QPS × 5 s, formal 10 → 10 → 10 QPS × 6 s,
 * 5 QPS per worker, so 2 workers per formal step; 14 s and 16 s for a hung monitor, so the steps outlast the workers'
 * 6 s heartbeat bound), arms one fault of the local stack ({@code LocalFaults}) in the
 * pre-test or in the first formal step, and waits for the run to end. Per cell it prints: the run's end state
 * (status/outcome and reason), the time from the fault's first firing (the local stack's {@code faults.jsonl}) to the
 * target's last request, whether a report was written, whether the run still holds a lease, and the requests the
 * report counts (plus those it names as not counted) against the target's own count.
 *
 * <p>Goal (issue "Fail safe under Richter's own faults"): {@code stuck=0 leases_held=0 miscounted=0} and
 * {@code max_load_after_monitor_loss_s ≤ 2}, over the cells where monitoring is lost (monitor errors and throttles, an
 * unreadable abort flag, a stopped execution). Settings (system properties): {@code bench.cells} (comma-separated
 * cell names, default all), {@code bench.seed} (default 7).
 */
public class OwnFaultsBench {
    /**
     * @param name        cell name
     * @param spec        the fault ({@code RICHTER_LOCAL_FAULTS} syntax), null for an external StopExecution
     * @param faultForMs  how long the fault stays armed, ms; 0 until the run ends
     * @param monitorLoss whether the cell loses the run's monitoring (its load-after-fault counts toward the goal)
     * @param armBefore   arm when the stage before starts (a crash of the stage's first worker), not inside it
     */
    record Fault(String name, String spec, long faultForMs, boolean monitorLoss, boolean armBefore) {
        /** A hung monitor is lost only when its bound passes: its load counts from the abort flag, not the fault. */
        boolean fromFlag() {
            return spec != null && spec.contains("=timeout");
        }
    }

    static final List<Fault> FAULTS = List.of(
            new Fault("monitor-error", "lambda.FaultDeciderFunction=error", 0, true, false),
            new Fault("monitor-throttle", "lambda.ProbeFunction=throttle", 0, true, false),
            new Fault("monitor-hang", "lambda.ProbeFunction=timeout", 0, true, false),
            new Fault("load-driver-crash", "lambda.LoadDriverFunction=crash:5000@nth:1", 0, false, true),
            new Fault("ddb-throttle-windows", "dynamodb.RunMetricsTable.BatchWriteItem=throttle@p:0.6", 6_000, false, false),
            new Fault("ddb-throttle-results", "dynamodb.RunMetricsTable.PutItem=throttle", 8_000, false, false),
            new Fault("ddb-throttle-abort-flag", "dynamodb.RunsTable.GetItem=throttle", 6_000, true, false),
            new Fault("report-failure", "lambda.ReportFunction=error@nth:1", 0, false, false),
            new Fault("putevents-failure", "events.PutEvents=fail", 0, false, false),
            new Fault("stop-execution", null, 0, true, false));

    record Outcome(String cell, String status, String outcome, String reason, double loadAfterFaultS, boolean faultFired,
                   boolean report, boolean leaseHeld, long reportSent, long named, long targetCount, boolean miscounted,
                   boolean stuck, boolean monitorLoss, int missingWorkers, long namedUpTo) {}

    public static void main(String[] args) throws Exception {
        Path root = Path.of("").toAbsolutePath();
        Path work = Files.createTempDirectory("richter-own-faults");
        long seed = Long.getLong("bench.seed", 7);
        String only = System.getProperty("bench.cells", "");
        LocalLimits limits = LocalLimits.fromEnv();
        List<Outcome> outcomes = new ArrayList<>();
        try (LocalAwsStack stack = new LocalAwsStack(root, work, limits, line -> { }).start();
             SfnClient sfn = SfnClient.builder().region(AwsClients.region())
                     .httpClientBuilder(UrlConnectionHttpClient.builder()).build()) {
            RunLeases leases = new RunLeases(AwsClients.dynamoDb(), TableNames.fromEnv().leases(), Clock.systemUTC());
            int n = 0;
            for (Fault f : FAULTS) {
                for (String stage : List.of("pre-test", "formal")) {
                    String cell = f.name() + "/" + stage;
                    if (!only.isEmpty() && !List.of(only.split(",")).contains(f.name()) && !List.of(only.split(",")).contains(cell)) {
                        continue;
                    }
                    n++;
                    Outcome o;
                    try {
                        o = runCell(stack, sfn, leases, work, f, stage, "bench-faults-" + n, seed);
                    } catch (Exception e) {
                        // a cell the bench could not drive counts against the goal, as a run that did not end would
                        stack.faults().clear();
                        o = new Outcome(cell, "BENCH-ERROR", "", e.toString(), 0, false, false, false, 0, 0, 0, false,
                                true, f.monitorLoss(), 0, 0);
                    }
                    outcomes.add(o);
                    System.out.println(line(o));
                }
            }
        }
        long ended = outcomes.stream().filter(o -> !o.stuck()).count();
        long stuck = outcomes.stream().filter(Outcome::stuck).count();
        long held = outcomes.stream().filter(Outcome::leaseHeld).count();
        long miscounted = outcomes.stream().filter(Outcome::miscounted).count();
        double maxLoad = outcomes.stream().filter(Outcome::monitorLoss).mapToDouble(Outcome::loadAfterFaultS).max().orElse(0);
        System.out.printf(Locale.ROOT, "cells=%d ended=%d stuck=%d leases_held=%d miscounted=%d max_load_after_monitor_loss_s=%.2f%n",
                outcomes.size(), ended, stuck, held, miscounted, maxLoad);
    }

    static String line(Outcome o) {
        return String.format(Locale.ROOT, "cell %-30s end=%s/%s load_after_fault_s=%s report=%s lease_held=%s missing_workers=%d sent=%d+%s target=%d%s%s  reason: %s",
                o.cell(), o.status(), o.outcome().isEmpty() ? "-" : o.outcome(),
                o.faultFired() ? String.format(Locale.ROOT, "%.2f", o.loadAfterFaultS()) : "n/a(fault never fired)",
                o.report() ? "yes" : "no", o.leaseHeld() ? "YES" : "no", o.missingWorkers(), o.reportSent(), o.namedUpTo() > 0 ? "[" + o.named() + ".." + o.namedUpTo() + "]" : "0", o.targetCount(),
                o.miscounted() ? " MISCOUNTED" : "", o.stuck() ? " STUCK" : "", o.reason());
    }

    static Outcome runCell(LocalAwsStack stack, SfnClient sfn, RunLeases leases, Path work, Fault f, String stage,
                           String team, long seed) throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = new ApiClient(LocalAwsStack.apiBaseUrl(),
                    stack.identity().token(team, "bench@" + team, Duration.ofHours(1), JWSAlgorithm.RS256));
            String svc = "svc";
            // a hung monitor is caught by the workers' heartbeat bound (6 s): its steps outlast it
            int stepS = f.fromFlag() ? 16 : 6;
            check(api.post("/services", Json.write(Map.of("name", svc, "baseUrl", target.baseUrl(), "healthPath", "/actuator/health"))));
            String plan = Json.write(Map.of("name", "own faults", "scenarios", List.of(Map.of("name", "orders", "service", svc,
                            "requests", List.of(Map.of("method", "POST", "path", "/orders", "headers", Map.of("content-type", "application/json"),
                                    "body", "{\"sku\":\"A1\"}")))),
                    "preTest", Map.of("qps", 2, "durationS", f.fromFlag() ? 14 : 5),
                    "formal", Map.of("steps", List.of(Map.of("qps", 10, "durationS", stepS), Map.of("qps", 10, "durationS", stepS),
                            Map.of("qps", 10, "durationS", stepS))),
                    "coreModules", List.of(svc), "perWorkerQps", 5, "requestTimeoutMs", 1000));
            String planId = check(api.post("/plans", plan)).json().path("planId").asText();
            String fullSpec = f.spec() == null ? null : "seed=" + seed + "," + f.spec();
            boolean armFirst = f.armBefore() && stage.equals("pre-test");
            long armedAt = 0;
            if (armFirst) {
                armedAt = System.currentTimeMillis();
                stack.faults().set(LocalFaults.parse(fullSpec));
            }
            String runId = check(api.post("/plans/" + planId + "/runs", "")).json().path("runId").asText();
            if (!armFirst) {
                if (f.armBefore()) {
                    awaitStage(api, runId, "pre-test", 1_000);     // the pre-test's worker started: the next one is formal's
                } else {
                    awaitStage(api, runId, stage, stage.equals("pre-test") ? 1_500 : 2_500);
                }
                armedAt = System.currentTimeMillis();
                if (fullSpec == null) {
                    sfn.stopExecution(StopExecutionRequest.builder()
                            .executionArn("arn:aws:states:us-east-1:123456789012:execution:richter-dev-load-test-run:" + runId)
                            .cause("bench: stopped from outside").build());
                } else {
                    stack.faults().set(LocalFaults.parse(fullSpec));
                }
            }
            long clearAt = f.faultForMs() > 0 ? armedAt + f.faultForMs() : Long.MAX_VALUE;
            long deadline = System.currentTimeMillis() + 180_000;
            JsonNode run = null;
            boolean stuck = true;
            while (System.currentTimeMillis() < deadline) {
                if (System.currentTimeMillis() >= clearAt) {
                    stack.faults().clear();
                    clearAt = Long.MAX_VALUE;
                }
                var r = api.get("/runs/" + runId);
                run = r.json();
                String status = run.path("run").path("status").asText();
                if ((status.equals("COMPLETED") && run.path("reportReady").asBoolean(false)) || status.equals("FAILED")) {
                    stuck = false;
                    break;
                }
                Thread.sleep(500);
            }
            stack.faults().clear();
            Thread.sleep(3_000);   // the leases are released after the report; stragglers would arrive by now
            long faultAt = fullSpec == null ? armedAt : stack.faults().firstFiredAtMs(armedAt).orElse(0);
            if (f.fromFlag()) {
                // the probe hangs (its Task ends only at the function's 30 s Timeout): the run is no longer watched once
                // MonitorHeartbeat's bound passed, when a worker sets the flag
                var item = AwsClients.dynamoDb().getItem(b -> b.tableName(TableNames.fromEnv().runs())
                        .key(Map.of("runId", software.amazon.awssdk.services.dynamodb.model.AttributeValue.fromS(runId)))).item();
                var at = item == null ? null : item.get("abortRequestedAtMs");
                System.out.printf(Locale.ROOT, "  (%s: the probe hung at +0 ms, the abort flag was set at +%d ms, the target's"
                                + " last request came at +%d ms)%n", f.name() + "/" + stage,
                        at == null || faultAt == 0 ? -1 : Long.parseLong(at.n()) - faultAt, faultAt == 0 ? -1 : target.lastArrivalMs() - faultAt);
                faultAt = at == null ? 0 : Long.parseLong(at.n());
            }
            boolean fired = faultAt > 0;
            long last = target.lastArrivalMs();
            if (Boolean.getBoolean("bench.debug") && fired) {
                long fa = faultAt;
                System.out.println("  arrivals after the fault (ms): " + target.arrivalsMs.stream().filter(a -> a >= fa)
                        .map(a -> a - fa).toList());
            }
            double after = fired && last > faultAt ? (last - faultAt) / 1000.0 : 0;
            var report = api.get("/runs/" + runId + "/report");
            boolean hasReport = report.status() == 200;
            long sent = 0;
            long named = 0;
            long namedUpTo = 0;
            int missing = 0;
            String reason = run == null ? "" : run.path("run").path("abortReason").asText("");
            if (hasReport) {
                JsonNode rep = report.json();
                for (String s : List.of("preTest", "formal")) {
                    for (JsonNode step : rep.path(s)) {
                        sent += step.path("counters").path("sent").asLong();
                        missing += step.path("missingWorkers").size();
                    }
                }
                for (JsonNode p : rep.path("problems")) {
                    if (p.path("subject").asText().equals("requests not counted")) {
                        var m = java.util.regex.Pattern.compile("between (\\d+) and (\\d+) more").matcher(p.path("problem").asText());
                        if (m.find()) {
                            named += Long.parseLong(m.group(1));
                            namedUpTo += Long.parseLong(m.group(2));
                        }
                    }
                }
                reason = rep.path("outcomeReason").asText();
            } else if (run != null) {
                reason = run.path("failureReason").asText(reason);
            }
            long count = target.arrivalsMs.size();
            // exact, or the difference named: within the range the report gives for requests it could not count
            boolean miscounted = hasReport && count != sent && !(namedUpTo > 0 && count >= sent + named && count <= sent + namedUpTo);
            boolean held = leases.holder(team, svc).map(l -> l.runId().equals(runId)).orElse(false);
            String status = run == null ? "?" : run.path("run").path("status").asText();
            String outcome = run == null ? "" : run.path("run").path("outcome").asText("");
            return new Outcome(f.name() + "/" + stage, status, outcome, reason.length() > 160 ? reason.substring(0, 160) + "…" : reason,
                    after, fired, hasReport, held, sent, named, count, miscounted, stuck, f.monitorLoss(), missing, namedUpTo);
        }
    }

    static ApiClient.Response check(ApiClient.Response r) {
        if (r.status() >= 300) {
            throw new IllegalStateException(r.status() + " " + r.body());
        }
        return r;
    }

    /** Waits until the run is in {@code stage} (its first step), then {@code extraMs} more. */
    static void awaitStage(ApiClient api, String runId, String stage, long extraMs) throws Exception {
        long deadline = System.currentTimeMillis() + 90_000;
        while (System.currentTimeMillis() < deadline) {
            JsonNode run = api.get("/runs/" + runId).json().path("run");
            if (run.path("stage").asText().equals(stage)) {
                Thread.sleep(extraMs);
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("run " + runId + " never reached " + stage);
    }
}
