package dev.richter.loaddriver;

import dev.richter.common.model.DataSetRows;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.ReplayRequest;
import dev.richter.common.model.SetSource;
import dev.richter.common.model.StepPlan;
import dev.richter.common.model.WorkerRef;
import dev.richter.common.model.WorkerResult;
import dev.richter.common.model.WorkerTask;
import dev.richter.sizing.WorkerTasks;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;


/**
 * A step of 3 workers in 2 legs replays a scenario that draws from a data set of 60 unique rows: each worker of each
 * leg loads the set by id ({@link WorkerTasks#workerTask} with a set source, as {@code LoadDriverHandler} does),
 * and across all six invocations every row goes out exactly once, each send marked. Virtual time, as {@link LegRunTest}.
 */
class DataSetReplayTest {
    private static final long MS = 1_000_000L;
    private static final long T0_MS = 10_000;

    /** Records the URI and marker of every send; answers after 5 ms. */
    private static final class Sends implements HttpTransport {
        final VirtualClock clock;
        final List<String> uris;
        final List<String> markers;

        Sends(VirtualClock clock, List<String> uris, List<String> markers) {
            this.clock = clock;
            this.uris = uris;
            this.markers = markers;
        }

        @Override
        public PreparedRequest prepare(OutboundRequest request) {
            return () -> {
                uris.add(request.uri().getPath());
                markers.add(request.headers().get("baggage"));
                CompletableFuture<ResponseHead> f = new CompletableFuture<>();
                clock.at(clock.nanoTime() + 5 * MS, () -> f.complete(ResponseHead.of(200)));
                return f;
            };
        }

        @Override
        public void close() {}
    }

    @Test
    void noUniqueRowIsSentTwiceAcrossWorkersAndLegs() {
        List<List<String>> rows = new ArrayList<>();
        List<Integer> indexes = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            rows.add(List.of("b-" + i));
            indexes.add(i);
        }
        SetSource sets = new SetSource() {
            @Override
            public Optional<List<ReplayRequest>> trafficSet(String teamId, String setId) {
                return Optional.empty();
            }

            @Override
            public Optional<DataSetRows> dataSet(String teamId, String dataSetId) {
                return Optional.of(new DataSetRows(List.of("buyerId"), indexes, rows));
            }
        };
        Plan plan = new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("order", "shop", 1,
                List.of(new Plan.RequestSpec("POST", "/buyers/{{data.buyers.buyerId}}/orders", Map.of(), "{}", null)), null,
                List.of(new Plan.DataBinding("buyers", "unique")), Map.of())),
                new Plan.StepSpec(1, 5), List.of(new Plan.StepSpec(6, 10)), null, List.of("shop"), 2, 1000, 0);
        var step = new StepPlan("run-1", "t1", "plan-1", "formal", 0, 6, 10, 2, 3, T0_MS, 5_000, 2, 1000, 2000, 100);
        List<RegisteredService> services = List.of(new RegisteredService("t1", "shop", "http://shop", "/health", "/metrics", List.of()));
        List<String> uris = new ArrayList<>();
        List<String> markers = new ArrayList<>();
        ResultSink.InMemory sink = new ResultSink.InMemory();
        long sent = 0;
        for (int leg = 0; leg < 2; leg++) {
            for (int k = 0; k < 3; k++) {
                WorkerTask task = WorkerTasks.workerTask(step, new WorkerRef("run-1", "t1", "formal", 0, leg, k),
                        plan, services, sets);
                assertEquals(10, task.scenarios().get(0).data().get(0).rows().size(), "60 rows over 6 worker-legs");
                VirtualClock clock = new VirtualClock((T0_MS + task.legStartOffsetMs() - 2_000) * MS);
                WorkerResult r = new LoadDriver(new Sends(clock, uris, markers), sink, id -> false, clock,
                        () -> clock.nanoTime() / MS, LoadDriver.Config.DEFAULT, LoadDriver.SendObserver.NONE).run(task);
                sent += r.counters().sent();
            }
        }
        assertEquals(60, sent);
        assertEquals(60, uris.size());
        Set<String> distinct = new HashSet<>(uris);
        assertEquals(60, distinct.size(), "no row sent twice: " + uris);
        for (int i = 0; i < 60; i++) {
            assertTrue(distinct.contains("/buyers/b-" + i + "/orders"), "row " + i + " sent");
        }
        assertTrue(markers.stream().allMatch("richter-loadtest=1"::equals));
    }
}
