package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.Marker;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.Exit;
import dev.richter.links.LinkComparison;
import dev.richter.links.datastore.DiscoveredDatastore;
import dev.richter.links.graph.Dimension;
import dev.richter.links.trace.ParsedTraces;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The safety checks of DESIGN §1.5 / §3 ({@code checks} function): one static method per check, each
 * returning {@link CheckResult}s with PASS / WARN / FAIL and evidence. Plain Java, no AWS types, no I/O:
 * callers load SBOMs, registries, exits, mocks and spans and pass them in.
 *
 * <p>Static checks (before the pre-test and nightly): {@link #middlewareVersions},
 * {@link #shadowStorage}, {@link #messageQueues}, {@link #mocksPresent}, {@link #discoveredDatastores}. Dynamic checks
 * (on the pre-test's or the nightly replay's traces, e.g. {@code TraceDocuments.parse(name, bytes)}):
 * {@link #markerPropagation}, {@link #mockedExits}, {@link #linkComparison}, {@link #shadowWrites}.
 *
 * <p>{@link GuardedMiddlewareCheck} (every client and store on marked traffic guarded by the agent extension) runs in
 * both gates: {@code check} on the pre-test's spans (dynamic), {@code checkRecorded} on what ingests recorded (static).
 *
 * <p>Check names: {@value MiddlewareVersionCheck#NAME}, {@value ShadowStorageCheck#NAME},
 * {@value MessageQueueCheck#NAME}, {@value MocksPresentCheck#NAME}, {@value MarkerPropagationCheck#NAME},
 * {@value MockedExitsCheck#NAME}, {@value LinkComparisonCheck#NAME}, {@value ShadowWritesCheck#NAME},
 * {@value DiscoveredDatastoresCheck#NAME}.
 */
public final class SafetyChecks {
    private SafetyChecks() {}

    /**
     * Middleware versions against the team's rules ({@link MiddlewareVersionCheck}).
     *
     * @param sbomByService service name → CycloneDX JSON SBOM bytes (empty array when none is registered)
     * @param rules e.g. {@code new MiddlewareRule("org.apache.kafka:kafka-clients", ">=3.0.0 <4.0.0", "headers carry baggage")}
     */
    public static List<CheckResult> middlewareVersions(Map<String, byte[]> sbomByService, List<MiddlewareRule> rules) {
        return MiddlewareVersionCheck.check(sbomByService, rules);
    }

    /** Every declared datastore has an existing, distinct shadow target of the same schema version ({@link ShadowStorageCheck}). */
    public static List<CheckResult> shadowStorage(List<RegisteredService> services, ShadowRegistry registry) {
        return ShadowStorageCheck.check(services, registry);
    }

    /**
     * Shadow switch on and shadow topic mapped for every topic used ({@link MessageQueueCheck}).
     *
     * @param usages e.g. {@code QueueUsage.fromRegistry(services)} plus {@code QueueUsage.fromSpans(spans, scope)}
     * @param configs the services' per-topic shadow configuration
     */
    public static List<CheckResult> messageQueues(List<QueueUsage> usages, List<QueueShadowConfig> configs) {
        return MessageQueueCheck.check(usages, configs);
    }

    /**
     * A usable mock for every exit annotated mock required ({@link MocksPresentCheck}).
     *
     * @param exits the scope's exits ({@code LinkService.exits}); mock-required ones are checked
     * @param mocks {@code MockDefinition.parseDocument(bytes)} of the team's mock configuration
     */
    public static List<CheckResult> mocksPresent(List<Exit> exits, List<MockDefinition> mocks) {
        return MocksPresentCheck.check(exits, mocks);
    }

    /**
     * The marker reaches every in-scope span of marked traces, span links followed ({@link MarkerPropagationCheck}).
     *
     * @param traces the batch, e.g. the pre-test's spans
     * @param scopeServices the registered services' names (as in {@code service.name})
     * @param marker the team's marker, e.g. {@link Marker#DEFAULT}
     */
    public static List<CheckResult> markerPropagation(ParsedTraces traces, Set<String> scopeServices, Marker marker) {
        return MarkerPropagationCheck.check(traces.spans(), scopeServices, marker);
    }

    /**
     * Every datastore the traces show a service touching has a declared shadow ({@link DiscoveredDatastoresCheck}).
     *
     * @param discovered by service name, e.g. {@code LinkService.datastores(teamId)}
     */
    public static List<CheckResult> discoveredDatastores(List<RegisteredService> services,
                                                         Map<String, List<DiscoveredDatastore>> discovered) {
        return DiscoveredDatastoresCheck.check(services, discovered);
    }

    /**
     * Marked datastore calls went to shadows and real ones never did ({@link ShadowWritesCheck}).
     *
     * @param services the team's registered services (their declared datastores name the shadows)
     */
    public static List<CheckResult> shadowWrites(ParsedTraces traces, Set<String> scopeServices,
                                                 List<RegisteredService> services, Marker marker) {
        return ShadowWritesCheck.check(traces.spans(), scopeServices, services, marker);
    }

    /** Marked traffic never reaches a mock-required exit for real ({@link MockedExitsCheck}). */
    public static List<CheckResult> mockedExits(ParsedTraces traces, Set<String> scopeServices, List<Exit> exits,
                                                Marker marker) {
        return MockedExitsCheck.check(traces.spans(), scopeServices, exits, marker, Map.of());
    }

    /**
     * {@link #mockedExits(ParsedTraces, Set, List, Marker)}, with the {@code host:port} of exit services by name, under
     * which the agent extension names the mocks it serves ({@code richter.mock.exit=10.0.3.7:8083 POST /charge}).
     */
    public static List<CheckResult> mockedExits(ParsedTraces traces, Set<String> scopeServices, List<Exit> exits,
                                                Marker marker, Map<String, String> exitAddresses) {
        return MockedExitsCheck.check(traces.spans(), scopeServices, exits, marker, exitAddresses);
    }

    /**
     * Marked vs real links of the same entries within one batch ({@link LinkComparisonCheck}):
     * extra edges under marked traffic FAIL, missing ones WARN.
     */
    public static List<CheckResult> linkComparison(ParsedTraces traces, Marker marker, Dimension dimension) {
        return LinkComparisonCheck.check(traces.spans(), marker, dimension);
    }

    /**
     * As {@link #linkComparison(ParsedTraces, Marker, Dimension)}; edges into mock-required {@code exits} may be
     * missing under marked traffic (the mock answers) without a WARN.
     */
    public static List<CheckResult> linkComparison(ParsedTraces traces, Marker marker, Dimension dimension,
                                                   List<Exit> exits) {
        return LinkComparisonCheck.check(traces.spans(), marker, dimension, exits);
    }

    /**
     * Marked vs real link sets as stored by link-builder
     * ({@code LinkService.compare(realTeamId, markedTeamId, dimension)}).
     */
    public static List<CheckResult> linkComparison(LinkComparison comparison) {
        return LinkComparisonCheck.check(comparison);
    }
}
