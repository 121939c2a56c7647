package dev.richter.agent.isolation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.richter.sdk.Backports;
import dev.richter.sdk.MockConfigDocument;
import dev.richter.sdk.MockResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The isolation configuration of one service: what marked (load-test) traffic may reach, and what answers it at the
 * exits. Immutable, equal to another with the same components; a refresh swaps the whole value. The JSON document
 * ({@link #parse}):
 * <pre>{@code
 * {"mode": "enforce", "refreshS": 30,
 *  "scope": ["orders.internal:8080", "inventory.internal"],
 *  "mocks": [{"exit": "api.stripe.com/v1/charges", "status": 200, "body": "{\"id\":\"ch_1\"}",
 *             "headers": {"Content-Type": "application/json"}, "latencyMs": 80}],
 *  "grpcMocks": [{"method": "shop.Payments/Charge", "authority": "payments.internal:9090", "response": "CgRjaF8x"}]}
 * }</pre>
 * {@code mode}: {@code enforce} (default) or {@code report} ({@link IsolationMode}). {@code refreshS}: seconds until
 * the next load, a positive integer, optional (the JVM's {@code -Drichter.isolation.refresh-s} when absent). {@code
 * scope}: the hosts, with or without a port, of the services under test that marked traffic may reach ({@link
 * HostPort}); default none. {@code mocks}: the mock document's entries, read by its one reader ({@link
 * MockConfigDocument#parse}); their exit ids are matched against HTTP calls as {@link HttpExit} says. Unknown fields
 * are ignored. {@code shadows}: where marked datastore and broker calls go instead of production ({@link Shadows}),
 * default none. {@code marker}: {@code {"team": ..., "keys": [...]}}, the team whose signed markers this service
 * accepts ({@link MarkerKeys}); without it the bare marker is accepted. {@code grpcMocks}: the answers of marked gRPC
 * calls by method ({@link GrpcMock}), default none. Richter's {@code GET /safety/isolation} serves this document (its {@code Isolation} schema in
 * openapi.json).
 *
 * @param mode     enforce or report
 * @param refreshS seconds until the next load as the document states it; 0 when it states none
 * @param scope    hosts marked traffic may reach, in document order
 * @param mocks    exit id → mock, in document order
 * @param exits    the mocks' exit ids that name HTTP calls, most specific first (ties keep document order)
 * @param shadows  production target → shadow target, by kind
 * @param marker   the team and keys a marker's proof must verify against
 * @param grpcMocks the gRPC mocks, in document order
 */
public final class IsolationConfig {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private final IsolationMode mode;
    private final long refreshS;
    private final List<HostPort> scope;
    private final Map<String, MockResponse> mocks;
    private final List<HttpExit> exits;
    private final Shadows shadows;
    private final MarkerKeys marker;
    private final List<GrpcMock> grpcMocks;

    /** A configuration whose marker is unsigned ({@link MarkerKeys#UNSIGNED}). */
    public IsolationConfig(IsolationMode mode, long refreshS, List<HostPort> scope, Map<String, MockResponse> mocks,
                           List<HttpExit> exits, Shadows shadows) {
        this(mode, refreshS, scope, mocks, exits, shadows, MarkerKeys.UNSIGNED);
    }

    public IsolationConfig(IsolationMode mode, long refreshS, List<HostPort> scope, Map<String, MockResponse> mocks,
                           List<HttpExit> exits, Shadows shadows, MarkerKeys marker) {
        this(mode, refreshS, scope, mocks, exits, shadows, marker, Collections.<GrpcMock>emptyList());
    }

    /** A configuration with gRPC mocks too ({@link GrpcMock}, in document order). */
    public IsolationConfig(IsolationMode mode, long refreshS, List<HostPort> scope, Map<String, MockResponse> mocks,
                           List<HttpExit> exits, Shadows shadows, MarkerKeys marker, List<GrpcMock> grpcMocks) {
        this.marker = marker;
        this.grpcMocks = Backports.listCopy(grpcMocks);
        this.mode = mode;
        this.refreshS = refreshS;
        this.scope = Backports.listCopy(scope);
        this.mocks = Collections.unmodifiableMap(new LinkedHashMap<>(mocks));
        this.exits = Backports.listCopy(exits);
        this.shadows = shadows;
    }

    public IsolationMode mode() {
        return mode;
    }

    public long refreshS() {
        return refreshS;
    }

    public List<HostPort> scope() {
        return scope;
    }

    public Map<String, MockResponse> mocks() {
        return mocks;
    }

    public List<HttpExit> exits() {
        return exits;
    }

    public Shadows shadows() {
        return shadows;
    }

    /** The document's {@code grpcMocks}, in document order. */
    public List<GrpcMock> grpcMocks() {
        return grpcMocks;
    }

    /** The team whose markers this service accepts and the keys that sign them. */
    public MarkerKeys marker() {
        return marker;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof IsolationConfig)) {
            return false;
        }
        IsolationConfig c = (IsolationConfig) o;
        return mode == c.mode && refreshS == c.refreshS && scope.equals(c.scope) && mocks.equals(c.mocks)
                && exits.equals(c.exits) && Objects.equals(shadows, c.shadows) && marker.equals(c.marker)
                && grpcMocks.equals(c.grpcMocks);
    }

    @Override
    public int hashCode() {
        return Objects.hash(mode, refreshS, scope, mocks, exits, shadows, marker, grpcMocks);
    }

    @Override
    public String toString() {
        return "IsolationConfig[mode=" + mode + ", refreshS=" + refreshS + ", scope=" + scope + ", mocks=" + mocks
                + ", exits=" + exits + ", shadows=" + shadows + ", marker=" + marker + ", grpcMocks=" + grpcMocks + "]";
    }

    /**
     * Reads the document above.
     *
     * @param json UTF-8 JSON
     * @throws IllegalArgumentException naming the field path, e.g. {@code scope[1]: port: must be 1-65535 in 'a:0'},
     *                                  {@code refreshS: must be a positive integer},
     *                                  {@code mode: must be "enforce" or "report", got 'strict'}, or the mock
     *                                  document's own messages ({@code mocks[0].status: must be 100-599}), or a gRPC
     *                                  mock's ({@code grpcMocks[0].method: must be '<package>.<Service>/<Method>', got
     *                                  'Charge'})
     */
    public static IsolationConfig parse(byte[] json) {
        JsonNode root;
        try {
            root = MAPPER.readTree(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("not JSON: " + e.getMessage(), e);
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("document: must be a JSON object");
        }
        IsolationMode mode = IsolationMode.ENFORCE;
        if (root.has("mode")) {
            if (!root.get("mode").isTextual()) {
                throw new IllegalArgumentException("mode: must be \"enforce\" or \"report\"");
            }
            mode = IsolationMode.parse(root.get("mode").asText());
        }
        long refreshS = 0;
        if (root.has("refreshS")) {
            if (!root.get("refreshS").canConvertToLong() || !root.get("refreshS").isIntegralNumber()
                    || root.get("refreshS").asLong() < 1) {
                throw new IllegalArgumentException("refreshS: must be a positive integer");
            }
            refreshS = root.get("refreshS").asLong();
        }
        List<HostPort> scope = new ArrayList<>();
        if (root.has("scope")) {
            if (!root.get("scope").isArray()) {
                throw new IllegalArgumentException("scope: must be an array of \"host\" or \"host:port\"");
            }
            for (int i = 0; i < root.get("scope").size(); i++) {
                JsonNode entry = root.get("scope").get(i);
                if (!entry.isTextual()) {
                    throw new IllegalArgumentException("scope[" + i + "]: must be \"host\" or \"host:port\" text");
                }
                try {
                    scope.add(HostPort.parse(entry.asText()));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("scope[" + i + "]: " + e.getMessage(), e);
                }
            }
        }
        Map<String, MockResponse> mocks = MockConfigDocument.parse(json);
        List<HttpExit> exits = new ArrayList<>();
        for (String id : mocks.keySet()) {
            HttpExit.parse(id).ifPresent(exits::add);
        }
        exits.sort(Comparator.comparingInt(HttpExit::specificity).reversed());
        return new IsolationConfig(mode, refreshS, scope, mocks, exits, Shadows.parse(root.get("shadows")),
                MarkerKeys.parse(root.get("marker")), GrpcMock.parseAll(root.get("grpcMocks")));
    }
}
