package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What the demo prints beside the report's headline: the team's alerts on the timeline, where the time went, the
 * shop's side read from its own scrape and spans, and the install of the team's Prometheus and Alertmanager.
 */
class DemoOutputTest {
    private static JsonNode json(String singleQuoted) throws Exception {
        return Json.MAPPER.readTree(singleQuoted.replace('\'', '"'));
    }

    @Test
    void theTeamsAlertIsNamedWithItsStepAndWhetherItResolved() throws Exception {
        // 08:15:23.814 UTC, 3.5 s into step 2 (60 QPS), which started at 08:15:20.344
        JsonNode report = json("{'formal':[{'targetQps':40.0,'startedAtMs':1796458501206},"
                + "{'targetQps':60.0,'startedAtMs':1796458520344}],"
                + "'events':[{'atMs':1796458414800,'kind':'verdict-changed','module':'gateway','step':'pre-test#0','name':'HEALTHY→SUSPECT'},"
                + "{'atMs':1796458523814,'kind':'alert-fired','module':'gateway','step':'formal#1','name':'ShopShedding'},"
                + "{'atMs':1796458545739,'kind':'abort','module':'','step':'','name':'abort'}]}");
        assertEquals(List.of("team alert:   ShopShedding on gateway fired in step 2 · 60 QPS at 08:15:23 UTC (3.5 s into the"
                + " step), still firing at the abort (the report's timeline)"), Demo.teamAlerts(report));

        JsonNode resolved = json("{'formal':[{'targetQps':60.0,'startedAtMs':1796458520344}],"
                + "'events':[{'atMs':1796458523814,'kind':'alert-fired','module':'gateway','step':'formal#0','name':'ShopShedding'},"
                + "{'atMs':1796458533000,'kind':'alert-resolved','module':'gateway','step':'formal#0','name':'ShopShedding'}]}");
        assertEquals(List.of("team alert:   ShopShedding on gateway fired in step 1 · 60 QPS at 08:15:23 UTC (3.5 s into the"
                + " step), resolved at 08:15:33 (the report's timeline)"), Demo.teamAlerts(resolved));

        assertEquals(List.of("team alert:   none fired"), Demo.teamAlerts(json("{'events':[]}")));
    }

    @Test
    void theTimeLineNamesEachPhaseInOrder() {
        Map<String, Double> times = new LinkedHashMap<>();
        times.put("stack", 5.84);
        times.put("shop", 47.9);
        times.put("run", 80.0);
        assertEquals("time: stack 5.8 s · shop 47.9 s · run 80.0 s", Demo.timeLine(times));
    }

    @Test
    void theWarmingWaitsForOrdersBreakerOnlyWhenItIsNotClosed() {
        String closed = """
                # TYPE resilience4j_circuitbreaker_state gauge
                resilience4j_circuitbreaker_state{name="inventory",state="open"} 0.0
                resilience4j_circuitbreaker_state{name="inventory",state="closed"} 1.0
                """;
        assertTrue(Shop.breakerClosed(closed));
        assertFalse(Shop.breakerClosed(closed.replace("closed\"} 1.0", "closed\"} 0.0")), "open: waited out");
        assertFalse(Shop.breakerClosed("jvm_threads_live_threads 30.0\n"), "not said: waited out");
    }

    @Test
    void refusalsAreCountedFromTheExportedSpansInTheirWindow() {
        ObjectNode doc = Json.MAPPER.createObjectNode();
        var spans = doc.putArray("resourceSpans").addObject().putArray("scopeSpans").addObject().putArray("spans");
        for (long startMs : new long[] {1_000, 2_000, 3_000}) {
            ObjectNode span = spans.addObject().put("traceId", "t" + startMs).put("startTimeUnixNano", String.valueOf(startMs * 1_000_000L));
            span.putArray("attributes").addObject().put("key", "richter.refused").putObject("value").put("stringValue", "no shadow");
        }
        spans.addObject().put("traceId", "ok").put("startTimeUnixNano", "2500000000").putArray("attributes");
        assertEquals(2, Shop.refused(doc, 1_500, 3_000), "the spans started in [1.5 s, 3 s] with a refusal");
    }

    @Test
    void missingPrometheusAndAlertmanagerAreInstalledAsRootWithAnUpdateOnlyWhenTheFirstInstallFails() throws Exception {
        List<List<String>> ran = new ArrayList<>();
        List<String> installed = new ArrayList<>(List.of("apt-get", "sudo"));
        List<String> out = new ArrayList<>();
        // the first install fails (a fresh machine has no package lists), the update and the second install succeed
        LocalMonitoring.Commands apt = command -> {
            ran.add(command);
            if (command.contains("install") && ran.stream().noneMatch(c -> c.contains("update"))) {
                return 100;
            }
            if (command.contains("install")) {
                installed.addAll(command.subList(command.indexOf("-qq") + 1, command.size()));
            }
            return 0;
        };
        assertEquals(Optional.empty(), LocalMonitoring.install(installed::contains, apt, true, out::add));
        assertEquals(List.of(List.of("apt-get", "install", "-y", "-qq", "prometheus", "prometheus-alertmanager"),
                List.of("apt-get", "update", "-qq"),
                List.of("apt-get", "install", "-y", "-qq", "prometheus", "prometheus-alertmanager")), ran);
        assertEquals(List.of("installing prometheus and prometheus-alertmanager (Debian packages, apt-get install) for the"
                + " team's evidence ..."), out);

        ran.clear();
        assertEquals(Optional.empty(), LocalMonitoring.install(installed::contains, apt, true, out::add));
        assertEquals(List.of(), ran, "both there: nothing run");

        List<String> onlyPrometheus = new ArrayList<>(List.of("apt-get", "sudo", "prometheus"));
        LocalMonitoring.Commands sudoOk = command -> {
            ran.add(command);
            if (command.contains("install")) {
                onlyPrometheus.add("prometheus-alertmanager");
            }
            return 0;
        };
        assertEquals(Optional.empty(), LocalMonitoring.install(onlyPrometheus::contains, sudoOk, false, out::add));
        assertEquals(List.of(List.of("sudo", "-n", "true"),
                List.of("sudo", "-n", "apt-get", "install", "-y", "-qq", "prometheus-alertmanager")), ran,
                "not root: through sudo -n, only what is missing");

        ran.clear();
        Optional<String> why = LocalMonitoring.install(List.of("apt-get")::contains, command -> 1, false, out::add);
        assertEquals(Optional.of("prometheus and prometheus-alertmanager not installed (apt-get install prometheus"
                + " prometheus-alertmanager)"), why, "not root and no sudo: said, nothing installed");
    }
}
