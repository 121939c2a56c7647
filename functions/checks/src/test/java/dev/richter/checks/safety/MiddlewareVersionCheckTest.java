package dev.richter.checks.safety;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class MiddlewareVersionCheckTest {
    static final byte[] SBOM = SafetyFixtures.resource("inventory.cdx.json");

    private static CheckResult only(String component, String range) {
        List<CheckResult> r = SafetyChecks.middlewareVersions(Map.of("inventory", SBOM),
                List.of(new MiddlewareRule(component, range, "")));
        assertEquals(1, r.size(), r.toString());
        return r.get(0);
    }

    @Test
    void componentInRangePasses() {
        CheckResult r = only("org.apache.kafka:kafka-clients", ">=3.0.0 <4.0.0");
        assertEquals(Outcome.PASS, r.outcome());
        assertEquals("inventory", r.subject());
        assertTrue(r.evidence().contains("org.apache.kafka:kafka-clients 3.7.1 satisfies"), r.evidence());
    }

    @Test
    void componentBelowRangeFailsNamingComponentVersionAndRule() {
        CheckResult r = only("rocketmq-client", ">=5.0.0 <6.0.0");
        assertEquals(Outcome.FAIL, r.outcome());
        assertEquals("org.apache.rocketmq:rocketmq-client 4.9.4 is below the range that carries the marker: "
                + "rule rocketmq-client >=5.0.0 <6.0.0", r.evidence());
    }

    @Test
    void componentAboveRangeWarnsAndMavenQualifiersAreCoerced() {
        CheckResult r = only("lettuce-core", ">=6.0.0 <6.3.0");
        assertEquals(Outcome.WARN, r.outcome());
        assertTrue(r.evidence().contains("6.3.2.RELEASE (read as 6.3.2) is newer"), r.evidence());
        assertEquals(Outcome.PASS, only("org.hibernate.orm:hibernate-core", "^6.4.0").outcome());
    }

    @Test
    void nestedComponentsAndPurlRulesAreMatched() {
        assertEquals(Outcome.PASS, only("pkg:maven/io.micrometer/micrometer-tracing", ">=1.2.0").outcome());
        assertEquals(Outcome.FAIL, only("pkg:maven/io.micrometer/micrometer-tracing", ">=1.3.0").outcome());
    }

    @Test
    void absentComponentIsPassNotUsed() {
        CheckResult r = only("org.apache.dubbo:dubbo", ">=3.2.0");
        assertEquals(Outcome.PASS, r.outcome());
        assertTrue(r.evidence().startsWith("not used: no component org.apache.dubbo:dubbo among 7 SBOM components"),
                r.evidence());
    }

    @Test
    void missingSbomWarnsAndUnreadableSbomFails() {
        Map<String, byte[]> sboms = new TreeMap<>();
        sboms.put("order", new byte[0]);
        sboms.put("payment", "{\"bomFormat\": ".getBytes(StandardCharsets.UTF_8));
        List<CheckResult> r = SafetyChecks.middlewareVersions(sboms,
                List.of(new MiddlewareRule("kafka-clients", ">=3.0.0", "")));
        assertEquals(List.of(Outcome.WARN, Outcome.FAIL), r.stream().map(CheckResult::outcome).toList(), r.toString());
    }

    @Test
    void ruleWithGarbageRangeIsRejected() {
        // semver4j reads garbage as "any version": such a rule would pass everything
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new MiddlewareRule("kafka-clients", "latest", ""));
        assertTrue(e.getMessage().startsWith("range:"), e.getMessage());
    }
}
