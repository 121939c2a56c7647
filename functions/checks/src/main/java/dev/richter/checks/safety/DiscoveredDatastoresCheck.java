package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import dev.richter.links.datastore.DiscoveredDatastore;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Static check {@value #NAME}: every datastore a service was seen touching in its traces (the link builder's
 * discovery, {@code LinkService.datastores}) has a shadow among the datastores the service declares, so what the
 * service really uses is what the team configured for marked traffic.
 *
 * <p>Per discovered datastore that is not itself a declared shadow of the team ({@link ShadowMap}):
 * <ul>
 *   <li>FAIL when the service declares no shadow for it and some span wrote to it (subject {@code service kind
 *       name}), unless that was {@link #STALE_AFTER_MS} or more before the service's newest sighting of any datastore:
 *       then a WARN, as the write may be gone from its code (a sighting never expires otherwise, and a team that
 *       removes a write rather than shadowing it would be refused for good). A new sighting makes it a FAIL again;</li>
 *   <li>WARN when it declares none and it was only ever read: reference data, which marked traffic may read
 *       ({@link ShadowWritesCheck} lists such reads), or a shadow still to declare;</li>
 *   <li>else mapped. A service whose discovered datastores are all mapped gets one PASS with the count.</li>
 * </ul>
 * One WARN when nothing was discovered for any service of the scope (no traces ingested yet: nothing to compare).
 */
public final class DiscoveredDatastoresCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "discovered-datastores";

    /**
     * How long before its service's newest sighting a write must have been last seen to be stale, ms (7 days): the
     * service kept being traced for a week without writing it again.
     */
    public static final long STALE_AFTER_MS = 7L * 24 * 3_600_000;

    private DiscoveredDatastoresCheck() {}

    /**
     * @param services the scope's registered services, with their declared datastores
     * @param discovered discovered datastores by service name (services outside {@code services} are ignored)
     */
    public static List<CheckResult> check(List<RegisteredService> services,
                                          Map<String, List<DiscoveredDatastore>> discovered) {
        List<CheckResult> out = new ArrayList<>();
        ShadowMap teamShadows = ShadowMap.of(services);
        boolean any = false;
        for (RegisteredService s : services) {
            List<DiscoveredDatastore> seen = discovered.getOrDefault(s.name(), List.of());
            any |= !seen.isEmpty();
            ShadowMap own = ShadowMap.of(s);
            long newest = seen.stream().mapToLong(DiscoveredDatastore::lastSeenMs).max().orElse(0);
            int mapped = 0;
            int problems = 0;
            for (DiscoveredDatastore d : seen) {
                if (teamShadows.match(d.kind(), d.name(), d.namespace()).role() == ShadowMap.Role.SHADOW) {
                    continue;
                }
                ShadowMap.Match m = own.match(d.kind(), d.name(), d.namespace());
                if (m.role() == ShadowMap.Role.PRODUCTION) {
                    mapped++;
                    continue;
                }
                problems++;
                String what = s.name() + " " + d.kind() + " " + (d.namespace().isEmpty() ? "" : d.namespace() + "/")
                        + d.name() + " (" + (d.system().isEmpty() ? "" : d.system() + ", ") + "last seen "
                        + Instant.ofEpochMilli(d.lastSeenMs()) + ")";
                boolean stale = newest - d.lastSeenMs() >= STALE_AFTER_MS;
                out.add(d.writes() && !stale
                        ? new CheckResult(NAME, Outcome.FAIL, s.name() + " " + d.kind() + " " + d.name(), what
                                + " is written in the traces but " + s.name() + " declares no shadow " + d.kind()
                                + " for it: marked writes would reach it")
                        : d.writes()
                        ? new CheckResult(NAME, Outcome.WARN, s.name() + " " + d.kind() + " " + d.name(), what
                                + " was written in the traces, but not in the " + STALE_AFTER_MS / 86_400_000 + " days"
                                + " before " + s.name() + "'s newest sighting (" + Instant.ofEpochMilli(newest) + "): the"
                                + " write may be gone; it has no declared shadow, so a new sighting fails this check")
                        : new CheckResult(NAME, Outcome.WARN, s.name() + " " + d.kind() + " " + d.name(), what
                                + " is only read in the traces and has no declared shadow: reference data, or a shadow"
                                + " to declare"));
            }
            if (problems == 0 && mapped > 0) {
                out.add(new CheckResult(NAME, Outcome.PASS, s.name(), mapped + " discovered datastores, each with a"
                        + " declared shadow"));
            }
        }
        if (!any) {
            out.add(new CheckResult(NAME, Outcome.WARN, "discovered datastores", "no datastore discovered in the traces of "
                    + services.stream().map(RegisteredService::name).toList()
                    + " (ingest traces: POST /traces or the trace source): declared shadows not compared with real use"));
        }
        return out;
    }
}
