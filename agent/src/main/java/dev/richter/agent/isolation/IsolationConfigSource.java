package dev.richter.agent.isolation;

import dev.richter.sdk.HttpDocument;
import io.opentelemetry.api.internal.InstrumentationUtil;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Loads the {@link IsolationConfig} (the JSON document {@code {"mode":"enforce","scope":["orders.internal:8080",...],
 * "mocks":[...the mock document's entries...]}}, read by {@link IsolationConfig#parse}) from its {@link
 * IsolationSettings}: once at {@link #start} (bounded by the fetch deadline), then every {@link #nextRefreshS()}
 * seconds (the document's {@code refreshS}, else the settings') on one daemon thread ({@value #THREAD_NAME}). A load
 * that fails (connection, timeout of {@value #FETCH_TIMEOUT_S} s, a status other than 200, an unreadable file, a
 * malformed document) keeps the last good configuration and is logged with the {@link State}; so is the first good
 * load and every change of state. Thread-safe.
 */
public final class IsolationConfigSource implements AutoCloseable {
    /** Name of the refresh thread. */
    public static final String THREAD_NAME = "richter-isolation-refresh";
    /**
     * Timeout of one fetch of the URL, seconds: to connect, and to wait for the response's next bytes ({@link
     * HttpDocument}).
     */
    public static final long FETCH_TIMEOUT_S = 2;

    // java.util.logging: inside the agent it is remapped to the agent's own logger, so the extension does not
    // initialise the application's logging
    private static final Logger LOG = Logger.getLogger(IsolationConfigSource.class.getName());

    private final IsolationSettings settings;
    private final AtomicReference<State> state;
    private final AtomicReference<Optional<IsolationConfig>> config = new AtomicReference<>(Optional.empty());
    private volatile ScheduledExecutorService scheduler;

    /** A source that has loaded nothing yet; {@link #refresh} loads, {@link #start} loads and schedules. */
    public IsolationConfigSource(IsolationSettings settings) {
        this.settings = settings;
        this.state = new AtomicReference<>(new State(false, !settings.url().isPresent() && !settings.file().isPresent()
                ? "no source configured: set -Drichter.isolation.url or -Drichter.isolation.file" : "not loaded yet",
                0, 0, 0));
    }

    /**
     * Loads once (a failure is tolerated and logged) and schedules the refresh.
     *
     * @return the running source; {@link #close()} stops the refresh
     */
    public static IsolationConfigSource start(IsolationSettings settings) {
        IsolationConfigSource source = new IsolationConfigSource(settings);
        if (!settings.url().isPresent() && !settings.file().isPresent()) {
            LOG.warning("Richter isolation: " + source.state().lastError() + "; every marked call is refused");
            return source;
        }
        source.refresh();
        source.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, THREAD_NAME);
            t.setDaemon(true);
            return t;
        });
        source.scheduleNext();
        return source;
    }

    /** Seconds until the next load: the loaded document's {@code refreshS}, else the settings' {@code refreshS}. */
    long nextRefreshS() {
        return current().map(IsolationConfig::refreshS).filter(s -> s > 0).orElse(settings.refreshS());
    }

    private void scheduleNext() {
        scheduler.schedule(() -> {
            try {
                refresh();
            } finally {
                if (!scheduler.isShutdown()) {
                    scheduleNext();
                }
            }
        }, nextRefreshS(), TimeUnit.SECONDS);
    }

    /** The last good configuration; empty until one has loaded. */
    public Optional<IsolationConfig> current() {
        return config.get();
    }

    /** What is loaded and how fresh it is. */
    public State state() {
        return state.get();
    }

    /**
     * Loads the document now.
     *
     * @return true when a configuration was loaded; false when the load failed (the last good one stays)
     */
    public boolean refresh() {
        State before = state.get();
        try {
            byte[] document = read();
            IsolationConfig loaded = IsolationConfig.parse(document);
            Optional<IsolationConfig> previous = config.getAndSet(Optional.of(loaded));
            IsolationProof.documentLoaded(document, loaded.mode().name().toLowerCase(Locale.ROOT));
            state.set(new State(true, "", System.currentTimeMillis(), before.loadsOk() + 1, before.loadsFailed()));
            if (!before.loaded() || !before.lastError().isEmpty() || !previous.equals(Optional.of(loaded))) {
                LOG.info("Richter isolation: configuration loaded from " + settings.source() + " (mode "
                        + loaded.mode().name().toLowerCase(Locale.ROOT) + ", " + loaded.scope().size()
                        + " scope entries, " + loaded.mocks().size() + " mocks); " + state.get());
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return failed(before, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private byte[] read() throws IOException {
        if (settings.file().isPresent()) {
            return Files.readAllBytes(settings.file().get());
        }
        HttpDocument response = untraced();
        if (response.status() != 200) {
            throw new IOException("HTTP " + response.status() + " from " + settings.source());
        }
        return response.body();
    }

    /**
     * Sends the fetch with the agent's instrumentation suppressed ({@link InstrumentationUtil}, as the SDK's exporters
     * do), so the refresh does not add a client span to the service's traces every {@code refreshS} seconds.
     */
    private HttpDocument untraced() throws IOException {
        AtomicReference<HttpDocument> response = new AtomicReference<>();
        AtomicReference<IOException> failure = new AtomicReference<>();
        String authorization = settings.token().isEmpty() ? "" : "Bearer " + settings.token();
        InstrumentationUtil.suppressInstrumentation(() -> {
            try {
                // no redirect followed: the document comes from the URL configured
                response.set(HttpDocument.get(settings.url().get(), Duration.ofSeconds(FETCH_TIMEOUT_S), authorization,
                        false));
            } catch (IOException e) {
                failure.set(e);
            }
        });
        if (failure.get() != null) {
            throw failure.get();
        }
        return response.get();
    }

    private boolean failed(State before, String why) {
        State after = new State(before.loaded(), why, before.lastGoodEpochMs(), before.loadsOk(), before.loadsFailed() + 1);
        state.set(after);
        LOG.log(Level.WARNING, "Richter isolation: configuration not loaded from " + settings.source()
                + (before.loaded() ? ", keeping the last good one" : ", marked calls are refused until it is")
                + "; " + after);
        return false;
    }

    /** Stops the refresh; the loaded configuration stays in force. */
    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }

    /**
     * What {@link #state()} reports; a value, equal to another with the same components.
     *
     * @param loaded          a configuration has loaded at least once
     * @param lastError       the last load's error, {@code ""} when it succeeded
     * @param lastGoodEpochMs when the last good load finished, epoch milliseconds, 0 if never
     * @param loadsOk         loads that succeeded
     * @param loadsFailed     loads that failed
     */
    public static final class State {
        private final boolean loaded;
        private final String lastError;
        private final long lastGoodEpochMs;
        private final long loadsOk;
        private final long loadsFailed;

        public State(boolean loaded, String lastError, long lastGoodEpochMs, long loadsOk, long loadsFailed) {
            this.loaded = loaded;
            this.lastError = lastError;
            this.lastGoodEpochMs = lastGoodEpochMs;
            this.loadsOk = loadsOk;
            this.loadsFailed = loadsFailed;
        }

        public boolean loaded() {
            return loaded;
        }

        public String lastError() {
            return lastError;
        }

        public long lastGoodEpochMs() {
            return lastGoodEpochMs;
        }

        public long loadsOk() {
            return loadsOk;
        }

        public long loadsFailed() {
            return loadsFailed;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof State)) {
                return false;
            }
            State s = (State) o;
            return loaded == s.loaded && Objects.equals(lastError, s.lastError) && lastGoodEpochMs == s.lastGoodEpochMs
                    && loadsOk == s.loadsOk && loadsFailed == s.loadsFailed;
        }

        @Override
        public int hashCode() {
            return Objects.hash(loaded, lastError, lastGoodEpochMs, loadsOk, loadsFailed);
        }

        /** As logged with every change of state. */
        @Override
        public String toString() {
            return "State[loaded=" + loaded + ", lastError=" + lastError + ", lastGoodEpochMs=" + lastGoodEpochMs
                    + ", loadsOk=" + loadsOk + ", loadsFailed=" + loadsFailed + "]";
        }
    }
}
