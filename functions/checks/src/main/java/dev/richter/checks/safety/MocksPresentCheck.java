package dev.richter.checks.safety;

import dev.richter.common.model.CheckResult;
import dev.richter.common.model.CheckResult.Outcome;
import dev.richter.links.Exit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Static check {@value #NAME}: every exit annotated "mock required" has a usable mock configured.
 *
 * <p>A mock covers an exit when its {@link MockDefinition#exit()} equals the exit's {@code toNode}
 * (e.g. {@code payment POST /charge}) or {@code toService} (a service-wide mock), or — for an exit
 * known only as a service, e.g. an uninstrumented host — starts with {@code toService + " "} or
 * {@code toService + "/"} (host+path form). The most specific mock wins (exact node, then service,
 * then prefix).
 *
 * <p>Per exit (subject: the exit node): FAIL when no mock covers it or its status is not an HTTP
 * status (100–599); WARN when it has no simulated latency (it would answer in 0 ms and the test
 * would overstate capacity) or an empty body for a status other than 204/304; PASS otherwise.
 */
public final class MocksPresentCheck {
    /** Check name in {@link CheckResult#name()}. */
    public static final String NAME = "mock-present";

    private MocksPresentCheck() {}

    /**
     * @param exits the scope's exits (e.g. {@code LinkService.exits}); only mock-required ones are checked
     * @param mocks the team's configured mocks ({@link MockDefinition#parseDocument})
     * @return one result per mock-required exit, or one PASS when none requires a mock
     */
    public static List<CheckResult> check(List<Exit> exits, List<MockDefinition> mocks) {
        Map<String, Exit> required = MockRequiredExits.byNode(exits);
        List<CheckResult> out = new ArrayList<>();
        if (required.isEmpty()) {
            out.add(new CheckResult(NAME, Outcome.PASS, "exits", "no exit is annotated mock required"));
            return out;
        }
        for (Map.Entry<String, Exit> r : required.entrySet()) {
            String node = r.getKey();
            Optional<MockDefinition> mock = mockFor(r.getValue(), mocks);
            if (mock.isEmpty()) {
                out.add(new CheckResult(NAME, Outcome.FAIL, node, "mock required but none configured (from "
                        + r.getValue().fromService() + "; " + mocks.size() + " mocks configured)"));
                continue;
            }
            MockDefinition m = mock.get();
            String described = "mock '" + m.exit() + "'";
            if (m.status() < 100 || m.status() > 599) {
                out.add(new CheckResult(NAME, Outcome.FAIL, node, described + (m.status() == MockDefinition.STATUS_UNSET
                        ? " has no status" : " has status " + m.status() + ", not an HTTP status")));
            } else if (m.latencyMs() == MockDefinition.LATENCY_UNSET) {
                out.add(new CheckResult(NAME, Outcome.WARN, node, described + " (status " + m.status()
                        + ") has no simulated latency: it answers in 0 ms and the test overstates capacity"));
            } else if (m.body().isEmpty() && m.status() != 204 && m.status() != 304) {
                out.add(new CheckResult(NAME, Outcome.WARN, node, described + " (status " + m.status()
                        + ", latency " + m.latencyMs() + " ms) has an empty body"));
            } else {
                out.add(new CheckResult(NAME, Outcome.PASS, node, described + ": status " + m.status() + ", latency "
                        + m.latencyMs() + " ms, body " + m.body().length() + " chars, " + m.headers().size() + " headers"));
            }
        }
        return out;
    }

    /** The most specific mock covering {@code exit} (see class comment). */
    static Optional<MockDefinition> mockFor(Exit exit, List<MockDefinition> mocks) {
        String node = exit.toNode().isEmpty() ? exit.toService() : exit.toNode();
        String service = exit.toService();
        for (MockDefinition m : mocks) {
            if (m.exit().equals(node)) {
                return Optional.of(m);
            }
        }
        for (MockDefinition m : mocks) {
            if (m.exit().equals(service)) {
                return Optional.of(m);
            }
        }
        if (node.equals(service)) {
            for (MockDefinition m : mocks) {
                if (m.exit().startsWith(service + " ") || m.exit().startsWith(service + "/")) {
                    return Optional.of(m);
                }
            }
        }
        return Optional.empty();
    }
}
