package dev.richter.sdk;

import java.io.IOException;
import java.net.URI;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Exit mocks inside a service under test: calls to an exit that has a configured mock are answered
 * by the mock — <b>only for marked (load-test) requests</b>; unmarked traffic is never touched.
 *
 * <p>Use, at the place the service calls the exit:
 * <pre>{@code
 * ExitMocks mocks = ExitMocks.start(ExitMocksConfig.of(URI.create(System.getenv("MOCKS_URL"))));
 * ...
 * Optional<MockResponse> mock = mocks.forExit("payment POST /charge", incomingRequest.header("baggage"));
 * if (mock.isPresent()) {            // marked request, mock configured, latency already waited
 *     span.setAttribute(ExitMocks.MOCK_ATTRIBUTE, ExitMocks.MOCK_ATTRIBUTE_VALUE);
 *     span.setAttribute(ExitMocks.MOCK_EXIT_ATTRIBUTE, "payment POST /charge");
 *     return toResponse(mock.get());
 * }
 * return callPaymentForReal();
 * }</pre>
 * Richter's dynamic check {@code mocked-exit} recognizes a mocked call by those span attributes, and
 * fails a run whose marked traffic reaches a mock-required exit without them.
 *
 * <p>Configuration: the document at {@link ExitMocksConfig#configUrl()} ({@code {"mocks":[{"exit",
 * "status","body","headers","latencyMs"}]}}, see {@link MockConfigDocument}) is fetched once by
 * {@link #start} (bounded by the fetch timeout, {@link HttpDocument}) and then every {@link
 * ExitMocksConfig#refreshInterval()}
 * on one daemon thread. A fetch that fails (connection, deadline, non-200 status, malformed document)
 * keeps the last good configuration and is counted in {@link #state()}. Until the first good fetch no
 * mock is known, and marked calls go to the real exit: check {@link FetchState#loaded()} at start-up if that
 * must not happen.
 *
 * <p>Exit ids are matched exactly: a Richter interface node ({@code payment POST /charge}) passed by
 * the caller, or host[:port]+path for {@link #forHttpCall}. Thread-safe.
 */
public final class ExitMocks implements AutoCloseable {
    /** Span attribute a caller sets on the span of a mocked call. */
    public static final String MOCK_ATTRIBUTE = "richter.mock";
    /** Value of {@link #MOCK_ATTRIBUTE}. */
    public static final String MOCK_ATTRIBUTE_VALUE = "true";
    /** Span attribute naming the mocked exit, e.g. {@code payment POST /charge}. */
    public static final String MOCK_EXIT_ATTRIBUTE = "richter.mock.exit";

    private static final Logger LOG = Logger.getLogger(ExitMocks.class.getName());

    private final ExitMocksConfig config;
    private final ScheduledExecutorService scheduler;
    private final AtomicReference<Map<String, MockResponse>> mocks = new AtomicReference<>(Collections.emptyMap());
    private final AtomicReference<String> lastError = new AtomicReference<>("");
    private final AtomicLong lastSuccessEpochMs = new AtomicLong(0);
    private final AtomicLong successes = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();

    private ExitMocks(ExitMocksConfig config) {
        this.config = config;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "richter-exit-mocks-refresh");
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Fetches the configuration once (failure tolerated, see class comment) and schedules the refresh.
     *
     * @param config where and how often to fetch
     * @return a running instance; {@link #close()} stops the refresh
     */
    public static ExitMocks start(ExitMocksConfig config) {
        ExitMocks m = new ExitMocks(config);
        m.refresh();
        long every = config.refreshInterval().toMillis();
        m.scheduler.scheduleWithFixedDelay(m::refresh, every, every, TimeUnit.MILLISECONDS);
        return m;
    }

    /**
     * The mock for {@code exitId} if the request carrying {@code incomingBaggage} is marked.
     *
     * @param exitId exit id as configured, e.g. {@code payment POST /charge}
     * @param incomingBaggage the incoming request's {@code baggage} header value (null when absent)
     * @return see {@link #forExit(String, Marked)}
     */
    public Optional<MockResponse> forExit(String exitId, String incomingBaggage) {
        return forExit(exitId, Marked.fromBaggage(incomingBaggage, config.markerKey(), config.markerValue()));
    }

    /**
     * The mock for {@code exitId}, for a {@link Marked#MARKED} request only; waits the mock's simulated
     * latency before returning it (an interrupt ends the wait early and keeps the interrupt flag).
     *
     * @return the response to use instead of calling the exit; empty for unmarked requests (at once,
     *     without lookup) and for exits without a mock
     */
    public Optional<MockResponse> forExit(String exitId, Marked marked) {
        if (marked != Marked.MARKED || exitId == null) {
            return Optional.empty();
        }
        MockResponse m = mocks.get().get(exitId.trim());
        if (m == null) {
            return Optional.empty();
        }
        if (m.latencyMs() > 0) {
            try {
                Thread.sleep(m.latencyMs());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return Optional.of(m);
    }

    /**
     * Like {@link #forExit(String, Marked)} for an outgoing HTTP call: looks up {@code host:port/path}
     * (port only when the URI has one), then {@code host/path}. {@code method} is not part of the key:
     * configure interface-node ids ({@code payment POST /charge}) to tell methods apart.
     */
    public Optional<MockResponse> forHttpCall(URI target, Marked marked) {
        if (marked != Marked.MARKED || target == null || target.getHost() == null) {
            return Optional.empty();
        }
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        Map<String, MockResponse> current = mocks.get();
        if (target.getPort() > 0 && current.containsKey(target.getHost() + ":" + target.getPort() + path)) {
            return forExit(target.getHost() + ":" + target.getPort() + path, marked);
        }
        return forExit(target.getHost() + path, marked);
    }

    /**
     * Fetches the configuration now.
     *
     * @return true when a new configuration was loaded; false when the fetch failed (the last good one stays)
     */
    public boolean refresh() {
        try {
            HttpDocument resp = HttpDocument.get(config.configUrl(), config.fetchTimeout(), config.authorization(),
                    true);
            if (resp.status() != 200) {
                return failed("HTTP " + resp.status() + " from " + config.configUrl());
            }
            mocks.set(Backports.mapCopy(MockConfigDocument.parse(resp.body())));
            lastSuccessEpochMs.set(System.currentTimeMillis());
            lastError.set("");
            successes.incrementAndGet();
            return true;
        } catch (IOException | IllegalArgumentException e) {
            return failed(e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private boolean failed(String why) {
        failures.incrementAndGet();
        lastError.set(why);
        LOG.log(Level.WARNING, "exit mock configuration not refreshed, keeping the last good one ("
                + mocks.get().size() + " mocks): " + why);
        return false;
    }

    /** What is loaded and how fresh it is. */
    public FetchState state() {
        return new FetchState(lastSuccessEpochMs.get() > 0, mocks.get().size(), lastSuccessEpochMs.get(), lastError.get(),
                successes.get(), failures.get());
    }

    /** Stops the periodic refresh; the loaded mocks stay usable. */
    @Override
    public void close() {
        scheduler.shutdownNow();
    }

    /** What {@link #state()} reports: a value, equal to another with the same components. */
    public static final class FetchState {
        private final boolean loaded;
        private final int mocks;
        private final long lastSuccessEpochMs;
        private final String lastError;
        private final long fetchesOk;
        private final long fetchesFailed;

        /**
         * @param loaded a fetch has succeeded at least once
         * @param mocks mocks in the current configuration
         * @param lastSuccessEpochMs when the last good fetch finished, 0 if never
         * @param lastError the last fetch's error, {@code ""} when it succeeded
         * @param fetchesOk fetches that loaded a configuration
         * @param fetchesFailed fetches that failed
         */
        public FetchState(boolean loaded, int mocks, long lastSuccessEpochMs, String lastError, long fetchesOk,
                          long fetchesFailed) {
            this.loaded = loaded;
            this.mocks = mocks;
            this.lastSuccessEpochMs = lastSuccessEpochMs;
            this.lastError = lastError;
            this.fetchesOk = fetchesOk;
            this.fetchesFailed = fetchesFailed;
        }

        /** A fetch has succeeded at least once. */
        public boolean loaded() {
            return loaded;
        }

        /** Mocks in the current configuration. */
        public int mocks() {
            return mocks;
        }

        /** When the last good fetch finished, epoch milliseconds, 0 if never. */
        public long lastSuccessEpochMs() {
            return lastSuccessEpochMs;
        }

        /** The last fetch's error, {@code ""} when it succeeded. */
        public String lastError() {
            return lastError;
        }

        /** Fetches that loaded a configuration. */
        public long fetchesOk() {
            return fetchesOk;
        }

        /** Fetches that failed. */
        public long fetchesFailed() {
            return fetchesFailed;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof FetchState)) {
                return false;
            }
            FetchState s = (FetchState) o;
            return loaded == s.loaded && mocks == s.mocks && lastSuccessEpochMs == s.lastSuccessEpochMs
                    && Objects.equals(lastError, s.lastError) && fetchesOk == s.fetchesOk
                    && fetchesFailed == s.fetchesFailed;
        }

        @Override
        public int hashCode() {
            return Objects.hash(loaded, mocks, lastSuccessEpochMs, lastError, fetchesOk, fetchesFailed);
        }

        @Override
        public String toString() {
            return "FetchState[loaded=" + loaded + ", mocks=" + mocks + ", lastSuccessEpochMs=" + lastSuccessEpochMs
                    + ", lastError=" + lastError + ", fetchesOk=" + fetchesOk + ", fetchesFailed=" + fetchesFailed
                    + "]";
        }
    }
}
