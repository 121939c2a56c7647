package dev.richter.sizing;

import static org.junit.jupiter.api.Assertions.*;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/** The AWS values of {@link Quotas}, its builder, its environment overrides, and its refusals. */
class QuotasTest {
    @Test
    void theDefaultsAreTheDocumentedAwsValues() {
        Quotas q = Quotas.AWS;
        assertEquals(900, q.loadDriverTimeoutS());
        assertEquals(1769, q.loadDriverMemoryMb());
        assertEquals(10_000, q.workerLeadMs());
        assertEquals(5_000, q.legMarginMs());
        assertEquals(25_000, q.historyEventsPerExecution());
        assertEquals(262_144, q.statePayloadBytes());
        assertEquals(40, q.inlineMapMaxConcurrency());
        assertEquals(10_000, q.distributedMapMaxConcurrency());
        assertEquals(1_000, q.lambdaConcurrency());
        assertEquals(2_000, q.monitorWaitMs());
        assertEquals(q, Quotas.builder().build());
        assertEquals(q, q.toBuilder().build());
    }

    /**
     * Each setter and each environment variable changes exactly its field: the variable is set (as a system
     * property, which {@link dev.richter.common.Env} reads when the environment has none) to the value the setter
     * gets, and {@link Quotas#fromEnv()} must equal {@link Quotas#AWS} with that one setter applied.
     */
    @Test
    void eachSetterAndEachEnvironmentVariableChangesExactlyItsField() {
        Map<String, Setter> byEnv = new LinkedHashMap<>();
        byEnv.put("LOAD_DRIVER_TIMEOUT_S", new Setter(b -> b.loadDriverTimeoutS(15), Quotas::loadDriverTimeoutS, 15));
        byEnv.put("LOAD_DRIVER_MEMORY_MB", new Setter(b -> b.loadDriverMemoryMb(512), Quotas::loadDriverMemoryMb, 512));
        byEnv.put("RICHTER_WORKER_LEAD_MS", new Setter(b -> b.workerLeadMs(3000), Quotas::workerLeadMs, 3000));
        byEnv.put("RICHTER_LEG_MARGIN_MS", new Setter(b -> b.legMarginMs(2000), Quotas::legMarginMs, 2000));
        byEnv.put(Quotas.HISTORY_EVENT_LIMIT_ENV, new Setter(b -> b.historyEventsPerExecution(400), Quotas::historyEventsPerExecution, 400));
        byEnv.put(Quotas.STATE_PAYLOAD_BYTES_ENV, new Setter(b -> b.statePayloadBytes(1024), Quotas::statePayloadBytes, 1024));
        byEnv.put(Quotas.INLINE_MAP_MAX_CONCURRENCY_ENV, new Setter(b -> b.inlineMapMaxConcurrency(4), Quotas::inlineMapMaxConcurrency, 4));
        byEnv.put(Quotas.DISTRIBUTED_MAP_MAX_CONCURRENCY_ENV,
                new Setter(b -> b.distributedMapMaxConcurrency(3), Quotas::distributedMapMaxConcurrency, 3));
        byEnv.put("RICHTER_LAMBDA_CONCURRENCY", new Setter(b -> b.lambdaConcurrency(20), Quotas::lambdaConcurrency, 20));
        byEnv.put("RICHTER_MONITOR_WAIT_MS", new Setter(b -> b.monitorWaitMs(500), Quotas::monitorWaitMs, 500));
        assertEquals(Quotas.class.getRecordComponents().length, byEnv.size(), "a setter and a variable per field");
        assertEquals(Quotas.AWS, Quotas.fromEnv(), "nothing set");
        byEnv.forEach((env, s) -> {
            Quotas changed = s.set().apply(Quotas.builder()).build();
            assertEquals(s.value(), s.get().apply(changed).longValue(), env);
            long differing = Quotas.class.getRecordComponents().length - equalComponents(changed);
            assertEquals(1, differing, env + ": only its field differs from AWS");
            assertEquals(changed, withProperty(env, Long.toString(s.value()), Quotas::fromEnv), env);
        });
    }

    @Test
    void eachOutOfRangeValueIsRefusedNamingItsFieldAndRule() {
        refused(b -> b.loadDriverTimeoutS(0), "loadDriverTimeoutS must be in [1, 900], was 0");
        refused(b -> b.loadDriverTimeoutS(901), "loadDriverTimeoutS must be in [1, 900], was 901");
        refused(b -> b.loadDriverMemoryMb(127), "loadDriverMemoryMb must be >= 128, was 127");
        refused(b -> b.workerLeadMs(-1), "workerLeadMs must be >= 0, was -1");
        refused(b -> b.legMarginMs(-1), "legMarginMs must be >= 0, was -1");
        refused(b -> b.historyEventsPerExecution(0), "historyEventsPerExecution must be >= 1, was 0");
        refused(b -> b.statePayloadBytes(0), "statePayloadBytes must be >= 1, was 0");
        refused(b -> b.inlineMapMaxConcurrency(0), "inlineMapMaxConcurrency must be >= 1, was 0");
        refused(b -> b.distributedMapMaxConcurrency(0), "distributedMapMaxConcurrency must be >= 1, was 0");
        refused(b -> b.lambdaConcurrency(0), "lambdaConcurrency must be >= 1, was 0");
        refused(b -> b.monitorWaitMs(-1), "monitorWaitMs must be >= 0, was -1");
    }

    @Test
    void aBadEnvironmentValueIsRefusedNamingTheVariableOrTheField() {
        var notANumber = assertThrows(IllegalStateException.class,
                () -> withProperty("RICHTER_LAMBDA_CONCURRENCY", "lots", Quotas::fromEnv));
        assertEquals("environment variable RICHTER_LAMBDA_CONCURRENCY must be an integer, was 'lots'", notANumber.getMessage());
        var outOfRange = assertThrows(IllegalArgumentException.class,
                () -> withProperty("LOAD_DRIVER_TIMEOUT_S", "901", Quotas::fromEnv));
        assertEquals("loadDriverTimeoutS must be in [1, 900], was 901", outOfRange.getMessage());
    }

    /** A builder setter, how to read its field back, and the value it sets. */
    private record Setter(UnaryOperator<Quotas.Builder> set, Function<Quotas, Number> get, long value) {}

    private static long equalComponents(Quotas q) {
        long n = 0;
        for (var c : Quotas.class.getRecordComponents()) {
            try {
                n += c.getAccessor().invoke(q).equals(c.getAccessor().invoke(Quotas.AWS)) ? 1 : 0;
            } catch (ReflectiveOperationException e) {
                throw new AssertionError(e);
            }
        }
        return n;
    }

    private static void refused(UnaryOperator<Quotas.Builder> set, String message) {
        var e = assertThrows(IllegalArgumentException.class, () -> set.apply(Quotas.builder()).build(), message);
        assertEquals(message, e.getMessage());
    }

    private static <T> T withProperty(String name, String value, Supplier<T> read) {
        String before = System.getProperty(name);
        System.setProperty(name, value);
        try {
            return read.get();
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }

    /** 10 % of the account's concurrency is left free: 100 of AWS's default 1 000, what Lambda keeps unreserved. */
    @Test
    void aRunLeavesATenthOfTheAccountsConcurrencyFree() {
        assertEquals(100, Quotas.AWS.lambdaReserve());
        assertEquals(2, Quotas.builder().lambdaConcurrency(20).build().lambdaReserve());
        assertEquals(1, Quotas.builder().lambdaConcurrency(5).build().lambdaReserve(), "rounded up");
    }
}
