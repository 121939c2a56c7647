package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.common.model.RegisteredService;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Static check {@value #NAME}: every datastore a service declares sends marked writes to a shadow
 * target that exists, is not the production target, and has the production target's schema version.
 *
 * <p>Per datastore (subject {@code service kind production}):
 * <ul>
 *   <li>FAIL: no shadow declared; shadow equal to production (marked writes would land in
 *       production); shadow not in the {@link ShadowRegistry}; shadow schema version differs from
 *       production's (marked writes would fail or be read wrongly);</li>
 *   <li>WARN: production target not in the registry, or either schema version unknown — the versions
 *       cannot be compared;</li>
 *   <li>PASS otherwise. A service that declares no datastore gets one PASS saying so.</li>
 * </ul>
 */
public final class ShadowStorageCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "shadow-storage";

    private ShadowStorageCheck() {}

    /**
     * @param services the scope's registered services
     * @param registry known storage targets with schema versions
     * @return one result per declared datastore, in registry order
     */
    public static List<CheckResult> check(List<RegisteredService> services, ShadowRegistry registry) {
        List<CheckResult> out = new ArrayList<>();
        for (RegisteredService s : services) {
            if (s.datastores().isEmpty()) {
                out.add(new CheckResult(NAME, Outcome.PASS, s.name(), "declares no datastore"));
            }
            for (RegisteredService.Datastore d : s.datastores()) {
                out.add(judge(s.name(), d, registry));
            }
        }
        return out;
    }

    private static CheckResult judge(String service, RegisteredService.Datastore d, ShadowRegistry registry) {
        String kind = d.kind() == null ? "" : d.kind();
        String production = d.production() == null ? "" : d.production().trim();
        String shadow = d.shadow() == null ? "" : d.shadow().trim();
        String subject = service + " " + kind + " " + production;
        if (shadow.isEmpty()) {
            return new CheckResult(NAME, Outcome.FAIL, subject, "no shadow " + kind + " declared: marked writes have nowhere safe to go");
        }
        if (shadow.equals(production)) {
            return new CheckResult(NAME, Outcome.FAIL, subject, "shadow " + kind + " '" + shadow
                    + "' is the production target: marked writes would land in production");
        }
        Optional<ShadowRegistry.StorageTarget> shadowTarget = registry.find(kind, shadow);
        if (shadowTarget.isEmpty()) {
            return new CheckResult(NAME, Outcome.FAIL, subject, "shadow " + kind + " '" + shadow
                    + "' does not exist in the shadow registry");
        }
        Optional<ShadowRegistry.StorageTarget> productionTarget = registry.find(kind, production);
        if (productionTarget.isEmpty()) {
            return new CheckResult(NAME, Outcome.WARN, subject, "shadow " + kind + " '" + shadow + "' exists (schema "
                    + version(shadowTarget.get()) + ") but production " + kind + " '" + production
                    + "' is not in the registry: schema versions not compared");
        }
        String pv = productionTarget.get().schemaVersion();
        String sv = shadowTarget.get().schemaVersion();
        if (pv.isEmpty() || sv.isEmpty()) {
            return new CheckResult(NAME, Outcome.WARN, subject, "schema version unknown (production "
                    + version(productionTarget.get()) + ", shadow '" + shadow + "' " + version(shadowTarget.get())
                    + "): not compared");
        }
        if (!pv.equals(sv)) {
            return new CheckResult(NAME, Outcome.FAIL, subject, "shadow " + kind + " '" + shadow + "' has schema version "
                    + sv + ", production '" + production + "' has " + pv);
        }
        return new CheckResult(NAME, Outcome.PASS, subject, "shadow " + kind + " '" + shadow
                + "' exists, differs from production, schema version " + sv);
    }

    private static String version(ShadowRegistry.StorageTarget t) {
        return t.schemaVersion().isEmpty() ? "unknown" : t.schemaVersion();
    }
}
