package dev.richter.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.Plan;
import dev.richter.common.model.StepRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link WorkerCapacity} and {@link InFlightSizing}: the measured default, Little's law and the worker's ceiling. */
class InFlightSizingTest {
    @Test
    void theDefaultRateIsTheBenchsMeasuredFigureWithItsProvenance() {
        WorkerCapacity c = WorkerCapacity.measured();
        assertEquals(10_000, c.perWorkerQps());
        assertEquals(1, c.vcpus());
        assertEquals("bench/load-driver.sh", c.measuredBy());
        assertTrue(c.measurement().contains("one core"), c.measurement());
        // one vCPU is 1 769 MB of Lambda memory, the load driver's memory
        assertEquals(1_769, c.memoryMb());
        assertEquals(Quotas.DEFAULT_LOAD_DRIVER_MEMORY_MB, c.memoryMb());
    }

    @Test
    void theCeilingIsLambdasFileDescriptorsLessTheJvms() {
        assertEquals(1_024 - 64, InFlightSizing.MAX_IN_FLIGHT);
    }

    @Test
    void aSlowTargetAt200MsNeedsMoreInFlightThanAWorkerHolds() {
        // Little's law: 10 000 QPS x 0.2 s = 2 000 in flight; with the 1.5 headroom 3 000 > 960
        InFlightSizing s = InFlightSizing.of(10_000, 200);
        assertEquals(3_000, s.inFlightNeeded());
        assertEquals(960, s.inFlightCap());
        assertFalse(s.fits());
        // what a worker holds at 200 ms: 960 / (0.2 s x 1.5) = 3 200 QPS, and a plan without perWorkerQps gets it
        assertEquals(3_200, InFlightSizing.perWorkerQpsAt(200));
        assertEquals(3_200, InFlightSizing.defaultPerWorkerQps(200));
        assertTrue(InFlightSizing.of(3_200, 200).fits());
    }

    @Test
    void aFastTargetGetsACapAndConnectionsFromItsLatency() {
        // 10 000 QPS x 0.02 s x 1.5 = 300 in flight: 300 HTTP/1.1 connections, or 3 HTTP/2 connections of 100 streams
        InFlightSizing s = InFlightSizing.of(10_000, 20);
        assertEquals(300, s.inFlightNeeded());
        assertEquals(300, s.inFlightCap());
        assertEquals(300, s.connectionsHttp1());
        assertEquals(3, s.connectionsHttp2());
        assertTrue(s.fits());
        assertEquals(10_000, InFlightSizing.defaultPerWorkerQps(20), "the measured rate when the latency allows it");
    }

    @Test
    void withoutAnExpectedLatencyAWorkerGetsTheCeilingAndTheLatencyItHoldsIsReported() {
        InFlightSizing s = InFlightSizing.of(10_000, null);
        assertNull(s.expectedLatencyMs());
        assertEquals(960, s.inFlightCap());
        assertEquals(10, s.connectionsHttp2());
        // 960 / (10 000 QPS x 1.5) = 0.064 s
        assertEquals(64, s.latencyHeldMs());
        assertEquals(10_000, InFlightSizing.defaultPerWorkerQps(null));
        assertThrows(IllegalArgumentException.class, () -> InFlightSizing.of(0, null));
        assertThrows(IllegalArgumentException.class, () -> InFlightSizing.of(10, 0));
    }

    @Test
    void theStoredStepCarriesThePlansCapNotAConstant() {
        RegisteredServiceFixture f = new RegisteredServiceFixture();
        Plan slow = f.plan(2_000, 100);   // 2 000 x 0.1 x 1.5 = 300
        var started = RunLayout.start(new StepRef("run-1", "t1", "formal", 0, 4_000, 10), slow, f.services(), 0, false,
                Quotas.AWS);
        assertEquals(300, RunLayout.stepPlan(started, slow).maxInFlight());
        Plan unstated = f.plan(2_000, null);
        assertEquals(960, RunLayout.stepPlan(started, unstated).maxInFlight());
    }

    @Test
    void theEstimateRefusesASlowTargetsRateBeforeTheRunAtPerWorkerQps() {
        RegisteredServiceFixture f = new RegisteredServiceFixture();
        RunEstimate refused = RunEstimate.of(f.plan(10_000, 200), f.services(), Quotas.AWS, Prices.US_EAST_1);
        assertEquals(1, refused.violations().size(), refused.violations().toString());
        RunEstimate.Violation v = refused.violations().get(0);
        assertEquals("$.perWorkerQps", v.path());
        assertEquals("maxInFlight", v.limit().name());
        assertEquals(960, v.limit().value());
        assertTrue(v.reason().contains("needs 3,000 requests in flight") && v.reason().contains("at most 3200"), v.reason());
        assertEquals(3_000, refused.inFlight().inFlightNeeded());

        RunEstimate lowered = RunEstimate.of(f.plan(3_200, 200), f.services(), Quotas.AWS, Prices.US_EAST_1);
        assertEquals(List.of(), lowered.violations());
        assertEquals(960, lowered.inFlight().inFlightCap());
    }

    /** One registered service and plans on it at a given rate per worker and expected latency. */
    private static final class RegisteredServiceFixture {
        List<dev.richter.common.model.RegisteredService> services() {
            return List.of(new dev.richter.common.model.RegisteredService("t1", "order", "http://127.0.0.1:18081",
                    "/health", null, List.of()));
        }

        Plan plan(double perWorkerQps, Integer expectedLatencyMs) {
            return new Plan("plan-1", "t1", "p", List.of(new Plan.ScenarioSpec("buy", "order", 1,
                    List.of(new Plan.RequestSpec("GET", "/orders", Map.of(), null, null)))),
                    new Plan.StepSpec(2, 10), List.of(new Plan.StepSpec(4_000, 10)), null, List.of("order"), perWorkerQps,
                    2000, 1_700_000_000_000L, new Plan.StepSpec(0, 0), null, expectedLatencyMs);
        }
    }
}
