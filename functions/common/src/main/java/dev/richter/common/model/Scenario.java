package dev.richter.common.model;

import java.util.List;

/**
 * A scenario: a traffic set replayed against one registered service with a share of the plan's QPS.
 *
 * @param name          scenario name, unique in its plan
 * @param service       registered service name the traffic targets
 * @param targetBaseUrl the service's base URL, e.g. {@code http://127.0.0.1:18081}
 * @param weight        share of the plan's QPS (weights are normalized over the plan's scenarios)
 * @param requests      the traffic set, replayed round-robin
 */
public record Scenario(String name, String service, String targetBaseUrl, double weight, List<ReplayRequest> requests) {
    public Scenario {
        requests = requests == null ? List.of() : List.copyOf(requests);
    }
}
