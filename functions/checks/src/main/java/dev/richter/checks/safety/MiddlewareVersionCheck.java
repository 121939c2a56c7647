package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.cyclonedx.exception.ParseException;
import org.cyclonedx.model.Bom;
import org.cyclonedx.model.Component;
import org.cyclonedx.parsers.JsonParser;
import org.semver4j.Semver;
import org.semver4j.range.Range;

/**
 * Static check {@value #NAME}: every middleware component a service ships is in a version range
 * known to carry the marker, read from the service's CycloneDX JSON SBOM (any spec version
 * cyclonedx-core-java reads, 1.0–1.6; nested components included; the SBOM's own
 * {@code metadata.component} is the service and not checked).
 *
 * <p>Outcomes per (service, rule, matching component):
 * <ul>
 *   <li>in the range: PASS;</li>
 *   <li>below the range: FAIL naming component, version and rule;</li>
 *   <li>above the range: WARN (newer than what was verified to carry the marker);</li>
 *   <li>no version, or a version that is not semantic even after coercion ({@code 3.3.2.Final} is read
 *       as {@code 3.3.2}): WARN;</li>
 *   <li>no component matches the rule: PASS "not used" — a rule constrains a middleware <i>if</i> the
 *       service uses it; making it WARN would flag every service that does not use Kafka, and the
 *       nightly run would cry wolf. An SBOM that misses a component is a defect of the SBOM, which
 *       the generator (cyclonedx-maven-plugin, syft) owns.</li>
 * </ul>
 * A service without an SBOM is WARN (not verified); an SBOM that does not parse is FAIL.
 */
public final class MiddlewareVersionCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "middleware-version";

    private MiddlewareVersionCheck() {}

    /**
     * @param sbomByService service name → its CycloneDX JSON SBOM bytes (an empty array: none registered)
     * @param rules the team's rules
     * @return results in service order, then rule order (subject: the service)
     */
    public static List<CheckResult> check(Map<String, byte[]> sbomByService, List<MiddlewareRule> rules) {
        List<CheckResult> out = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : new TreeMap<>(sbomByService).entrySet()) {
            String service = e.getKey();
            byte[] sbom = e.getValue();
            if (sbom == null || sbom.length == 0) {
                out.add(new CheckResult(NAME, Outcome.WARN, service, "no SBOM registered: middleware versions not verified"));
                continue;
            }
            List<Component> components;
            try {
                components = components(new JsonParser().parse(sbom));
            } catch (ParseException | RuntimeException ex) {
                out.add(new CheckResult(NAME, Outcome.FAIL, service, "SBOM is not readable CycloneDX JSON: "
                        + ex.getMessage()));
                continue;
            }
            for (MiddlewareRule rule : rules) {
                List<Component> matching = components.stream().filter(c -> covers(rule, c)).toList();
                if (matching.isEmpty()) {
                    out.add(new CheckResult(NAME, Outcome.PASS, service, "not used: no component " + rule.component()
                            + " among " + components.size() + " SBOM components (rule " + rule.describe() + ")"));
                }
                for (Component c : matching) {
                    out.add(judge(service, rule, c));
                }
            }
        }
        return out;
    }

    private static CheckResult judge(String service, MiddlewareRule rule, Component c) {
        String name = coordinates(c);
        String version = c.getVersion() == null ? "" : c.getVersion().trim();
        if (version.isEmpty()) {
            return new CheckResult(NAME, Outcome.WARN, service, name + " has no version in the SBOM: rule "
                    + rule.describe() + " not verified");
        }
        Semver v = Semver.isValid(version) ? Semver.parse(version) : Semver.coerce(version);
        if (v == null) {
            return new CheckResult(NAME, Outcome.WARN, service, name + " " + version
                    + " is not a semantic version: rule " + rule.describe() + " not verified");
        }
        String read = v.getVersion().equals(version) ? "" : " (read as " + v.getVersion() + ")";
        if (rule.ranges().isSatisfiedBy(v)) {
            return new CheckResult(NAME, Outcome.PASS, service, name + " " + version + read + " satisfies "
                    + rule.describe());
        }
        boolean below = !rule.ranges().get().isEmpty();
        for (List<Range> alternative : rule.ranges().get()) {
            boolean belowThis = false;
            for (Range r : alternative) {
                if (!r.isSatisfiedBy(v) && v.isLowerThan(r.getRangeVersion())) {
                    belowThis = true;
                }
            }
            below &= belowThis;
        }
        if (below) {
            return new CheckResult(NAME, Outcome.FAIL, service, name + " " + version + read
                    + " is below the range that carries the marker: rule " + rule.describe());
        }
        return new CheckResult(NAME, Outcome.WARN, service, name + " " + version + read
                + " is newer than the range verified to carry the marker: rule " + rule.describe());
    }

    /** True when {@code rule.component()} names {@code c} (see {@link MiddlewareRule#component()}). */
    static boolean covers(MiddlewareRule rule, Component c) {
        String want = rule.component().trim().toLowerCase(Locale.ROOT);
        String name = c.getName() == null ? "" : c.getName().toLowerCase(Locale.ROOT);
        String group = c.getGroup() == null ? "" : c.getGroup().toLowerCase(Locale.ROOT);
        if (want.startsWith("pkg:")) {
            String purl = c.getPurl() == null ? "" : c.getPurl().toLowerCase(Locale.ROOT);
            int at = purl.indexOf('@');
            String bare = at < 0 ? purl : purl.substring(0, at);
            return bare.equals(want);
        }
        int colon = want.indexOf(':');
        if (colon >= 0) {
            return group.equals(want.substring(0, colon)) && name.equals(want.substring(colon + 1));
        }
        return name.equals(want);
    }

    private static String coordinates(Component c) {
        return (c.getGroup() == null || c.getGroup().isBlank() ? "" : c.getGroup() + ":") + c.getName();
    }

    /** All components, depth first, nested ones included; {@code metadata.component} excluded. */
    private static List<Component> components(Bom bom) {
        List<Component> out = new ArrayList<>();
        if (bom.getComponents() != null) {
            for (Component c : bom.getComponents()) {
                add(c, out);
            }
        }
        return out;
    }

    private static void add(Component c, List<Component> out) {
        out.add(c);
        if (c.getComponents() != null) {
            for (Component nested : c.getComponents()) {
                add(nested, out);
            }
        }
    }
}
