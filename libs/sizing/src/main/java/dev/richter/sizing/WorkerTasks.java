package dev.richter.sizing;

import dev.richter.common.MonitorHeartbeat;
import dev.richter.common.model.DataSetRows;
import dev.richter.common.model.Marker;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.Scenario;
import dev.richter.common.model.SetSource;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerTask;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * The task of one worker of one leg of a started step ({@link StepPlan} + {@link WorkerRef}): which share of the
 * step's schedule it sends ({@link StepLayout#leg}), the plan's scenarios against the registry
 * ({@link RunLayout#scenarios}), and the stored sets it replays and draws from ({@link SetSource}). The load driver
 * calls it once per worker. Plain Java: no AWS types.
 */
public final class WorkerTasks {
    private WorkerTasks() {}

    /**
     * The task of one worker of one leg, with the plan's scenarios resolved against the registry.
     *
     * @throws IllegalArgumentException  when the reference does not fit the step (leg or worker out of range)
     * @throws PlanNotRunnableException  when a scenario's service is no longer registered
     */
    public static WorkerTask workerTask(StepPlan step, WorkerRef ref, Plan plan, List<RegisteredService> services) {
        if (ref.legIndex() < 0 || ref.legIndex() >= step.legCount() || ref.workerIndex() < 0
                || ref.workerIndex() >= step.workerCount()) {
            throw new IllegalArgumentException("worker " + ref.workerIndex() + " of leg " + ref.legIndex()
                    + " is outside step " + step.stage() + "/" + step.stepIndex() + " (" + step.workerCount()
                    + " workers, " + step.legCount() + " legs)");
        }
        StepLayout.Leg leg = StepLayout.leg(ref.legIndex(), step.legMs(), step.durationS() * 1000L);
        return new WorkerTask(step.runId(), step.teamId(), step.stage(), step.stepIndex(), step.qps(), step.durationS(),
                ref.workerIndex(), step.workerCount(), step.stepStartMs(), step.requestTimeoutMs(), step.maxInFlight(),
                step.latenessToleranceMs(), Marker.DEFAULT, RunLayout.scenarios(plan, services), ref.legIndex(),
                leg.startOffsetMs(), ref.legIndex() == step.legCount() - 1 ? Long.MAX_VALUE : leg.endOffsetMs(),
                MonitorHeartbeat.STALE_AFTER_MS);
    }

    /**
     * The task of one worker of one leg, with the plan's scenarios resolved against the registry and their traffic
     * sets and data sets loaded by id from {@code sets}. Rows of a {@code unique} data set are partitioned: with n
     * workers and L legs, worker k of leg l keeps the rows whose index {@code % (n × L) == l × n + k}, so no two
     * workers (and no two legs) of the step send the same row; a {@code sequential} set is given whole, rotated so
     * each worker starts at its own share; a {@code random} set whole.
     *
     * @throws IllegalArgumentException  when the reference does not fit the step (leg or worker out of range)
     * @throws PlanNotRunnableException  when a scenario's service is no longer registered, or a set it names is absent
     */
    public static WorkerTask workerTask(StepPlan step, WorkerRef ref, Plan plan, List<RegisteredService> services, SetSource sets) {
        WorkerTask task = workerTask(step, ref, plan, services);
        int partitions = step.workerCount() * step.legCount();
        int partition = ref.legIndex() * step.workerCount() + ref.workerIndex();
        List<Scenario> resolved = new ArrayList<>();
        for (int i = 0; i < plan.scenarios().size(); i++) {
            Plan.ScenarioSpec spec = plan.scenarios().get(i);
            Scenario base = task.scenarios().get(i);
            List<ReplayRequest> requests = base.requests();
            if (spec.trafficSetId() != null && !spec.trafficSetId().isBlank()) {
                requests = sets.trafficSet(plan.teamId(), spec.trafficSetId()).orElseThrow(() -> new PlanNotRunnableException(
                        "scenario '" + spec.name() + "' replays traffic set '" + spec.trafficSetId() + "', which is not stored"));
                if (!spec.expect().isNone()) {
                    requests = requests.stream().map(r -> r.expect().isNone() ? r.withExpect(spec.expect()) : r).toList();
                }
            }
            if (!spec.slots().isEmpty()) {
                requests = requests.stream().map(r -> fillSlots(r, spec.slots())).toList();
            }
            List<Scenario.DataRows> data = new ArrayList<>();
            for (Plan.DataBinding b : spec.data()) {
                DataSetRows rows = sets.dataSet(plan.teamId(), b.dataSetId()).orElseThrow(() -> new PlanNotRunnableException(
                        "scenario '" + spec.name() + "' draws from data set '" + b.dataSetId() + "', which is not stored"));
                List<List<String>> kept = new ArrayList<>();
                for (int r = 0; r < rows.rows().size(); r++) {
                    if (!b.mode().equals("unique") || Math.floorMod(rows.indexes().get(r), partitions) == partition) {
                        kept.add(rows.rows().get(r));
                    }
                }
                if (b.mode().equals("sequential") && !kept.isEmpty()) {
                    Collections.rotate(kept, -(int) ((long) kept.size() * partition / partitions));
                }
                data.add(new Scenario.DataRows(b.dataSetId(), b.mode(), rows.columns(), kept));
            }
            resolved.add(new Scenario(base.name(), base.service(), base.targetBaseUrl(), base.weight(), requests, data));
        }
        return new WorkerTask(task.runId(), task.teamId(), task.stage(), task.stepIndex(), task.qps(), task.durationS(),
                task.workerIndex(), task.workerCount(), task.stepStartEpochMs(), task.requestTimeoutMs(), task.maxInFlight(),
                task.latenessToleranceMs(), task.marker(), resolved, task.legIndex(), task.legStartOffsetMs(), task.legEndOffsetMs(),
                task.monitorStaleAfterMs());
    }

    /**
     * A traffic-set request with its scrubbed slots ({@code {{slot:<name>}}}, DESIGN.md "Traffic sets") replaced by the
     * scenario's templates for them, in the path, header values and a text body; slots without a template stay.
     */
    static ReplayRequest fillSlots(ReplayRequest r, Map<String, String> slots) {
        UnaryOperator<String> fill = text -> {
            if (text == null || !text.contains("{{slot:")) {
                return text;
            }
            String out = text;
            for (var e : slots.entrySet()) {
                out = out.replace("{{slot:" + e.getKey() + "}}", e.getValue());
            }
            return out;
        };
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().forEach((k, v) -> headers.put(k, fill.apply(v)));
        String body = r.bodyBase64();
        if (body != null && !body.isEmpty()) {
            byte[] bytes = Base64.getDecoder().decode(body);
            String text = new String(bytes, StandardCharsets.UTF_8);
            if (text.contains("{{slot:") && Arrays.equals(text.getBytes(StandardCharsets.UTF_8), bytes)) {
                body = Base64.getEncoder().encodeToString(fill.apply(text).getBytes(StandardCharsets.UTF_8));
            }
        }
        return new ReplayRequest(r.method(), fill.apply(r.path()), headers, body, r.expect());
    }
}
