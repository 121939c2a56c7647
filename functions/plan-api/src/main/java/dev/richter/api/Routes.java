package dev.richter.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Every route of the HTTP API, as API Gateway route keys ({@code METHOD /path/{param}}), and the resource method each
 * one calls. {@code template.yaml} declares the same routes (one {@code HttpApi} event each, plus the catch-all
 * {@code $default}) and {@code openapi.json} describes the same operations: tests hold the three equal.
 *
 * <p>Every route but {@link #PUBLIC} is scoped to the team of the verified token's {@code team} claim
 * ({@link ApiRequest#teamId()}): another team's plan or run is a 404, never a 403 (no existence leak), and a token
 * without the claim gets 403 {@code NoTeam}. Lists answer {@code {"items": [...], "nextCursor"}} pages ({@link Cursor}).
 */
public final class Routes {
    /** What a route does: a method of one of the resources. */
    @FunctionalInterface
    interface Operation {
        ApiResponse apply(Resources resources, ApiRequest request);
    }

    /** One resource class per kind of thing the API serves, each built with only the stores and clients it uses. */
    record Resources(ServiceResource services, PlanResource plans, RunResource runs, ReportResource reports,
                     TraceResource traces, LinkResource links, TrafficSetResource trafficSets, FlowResource flows, DataSetResource dataSets,
                     SafetyResource safety, NotificationResource notifications, AuditResource audit, OpenApiResource openApi,
                     ProblemResource problems, CompareResource compare, EvidenceSourceResource evidenceSources,
                     ConsoleResource console) {}

    /** Route key to operation, in the order of {@link #ALL}. */
    private static final Map<String, Operation> TABLE = table();

    /** Every route key, in the order the API documents them. */
    public static final List<String> ALL = List.copyOf(TABLE.keySet());

    /** The route that serves the API's description, {@code openapi.json}. */
    public static final String OPENAPI = "GET /openapi.json";

    /** The console's page ({@link ConsoleResource}). */
    public static final String CONSOLE = "GET /console";
    /** The console's other files and its sign-in configuration. */
    public static final String CONSOLE_FILE = "GET /console/{file}";

    /** Routes that need no team (no authorizer on AWS). */
    public static final List<String> PUBLIC = List.of(OPENAPI, CONSOLE, CONSOLE_FILE);

    private final Resources resources;

    Routes(Resources resources) {
        this.resources = resources;
    }

    private static Map<String, Operation> table() {
        Map<String, Operation> t = new LinkedHashMap<>();
        t.put("POST /services", (r, req) -> r.services().register(req));
        t.put("GET /services", (r, req) -> r.services().list(req));
        t.put("GET /services/{name}", (r, req) -> r.services().get(req));
        t.put("DELETE /services/{name}", (r, req) -> r.services().delete(req));
        t.put("POST /plans", (r, req) -> r.plans().create(req));
        t.put("GET /plans", (r, req) -> r.plans().list(req));
        t.put("GET /plans/{planId}", (r, req) -> r.plans().get(req));
        t.put("PUT /plans/{planId}", (r, req) -> r.plans().replace(req));
        t.put("DELETE /plans/{planId}", (r, req) -> r.plans().delete(req));
        t.put("GET /plans/{planId}/estimate", (r, req) -> r.plans().estimate(req));
        t.put("POST /plans/estimate", (r, req) -> r.plans().estimateDraft(req));
        t.put("POST /plans/{planId}/runs", (r, req) -> r.runs().start(req));
        t.put("GET /plans/{planId}/runs", (r, req) -> r.runs().list(req));
        t.put("GET /runs", (r, req) -> r.runs().listTeam(req));
        t.put("GET /runs/{runId}", (r, req) -> r.runs().get(req));
        t.put("DELETE /runs/{runId}", (r, req) -> r.runs().cancel(req));
        t.put("POST /runs/{runId}/abort", (r, req) -> r.runs().abort(req));
        t.put("GET /runs/{runId}/report", (r, req) -> r.reports().get(req));
        t.put("GET /runs/{runId}/compare", (r, req) -> r.compare().compare(req));
        t.put("GET /runs/{runId}/events", (r, req) -> r.reports().events(req));
        t.put("POST /traces", (r, req) -> r.traces().ingest(req));
        t.put("GET /links/entries", (r, req) -> r.links().entries(req));
        t.put("GET /links/tree", (r, req) -> r.links().tree(req));
        t.put("GET /links/exits", (r, req) -> r.links().exits(req));
        t.put("PUT /links/exits/mock", (r, req) -> r.links().markMock(req));
        t.put("POST /traffic-sets", (r, req) -> r.trafficSets().importFile(req));
        t.put("GET /traffic-sets", (r, req) -> r.trafficSets().list(req));
        t.put("GET /traffic-sets/{setId}", (r, req) -> r.trafficSets().get(req));
        t.put("POST /flows", (r, req) -> r.flows().create(req));
        t.put("GET /flows/{flowId}", (r, req) -> r.flows().get(req));
        t.put("POST /flows/{flowId}/runs", (r, req) -> r.flows().run(req));
        t.put("GET /data-sets/{dataSetId}", (r, req) -> r.dataSets().get(req));
        t.put("PUT /safety", (r, req) -> r.safety().put(req));
        t.put("GET /safety", (r, req) -> r.safety().get(req));
        t.put("GET /safety/mocks", (r, req) -> r.safety().mocks(req));
        t.put("GET /safety/isolation", (r, req) -> r.safety().isolation(req));
        t.put("PUT /notifications", (r, req) -> r.notifications().put(req));
        t.put("GET /notifications", (r, req) -> r.notifications().get(req));
        t.put("PUT /evidence-sources", (r, req) -> r.evidenceSources().put(req));
        t.put("GET /evidence-sources", (r, req) -> r.evidenceSources().get(req));
        t.put("GET /audit", (r, req) -> r.audit().list(req));
        t.put("GET /problems", (r, req) -> r.problems().list(req));
        t.put("PATCH /problems/{problemId}", (r, req) -> r.problems().update(req));
        t.put(OPENAPI, (r, req) -> r.openApi().get(req));
        t.put(CONSOLE, (r, req) -> r.console().index(req));
        t.put(CONSOLE_FILE, (r, req) -> r.console().get(req));
        return Collections.unmodifiableMap(t);
    }

    /**
     * Calls the operation of the request's route key.
     *
     * @throws ApiException 403 {@code NoTeam} when a team-scoped route is called without a team; 404/405 for
     *                      {@code $default} (no route matched, {@link #unmatched}); each operation's own failures
     */
    ApiResponse dispatch(ApiRequest req) {
        if (!PUBLIC.contains(req.routeKey()) && !req.routeKey().equals("$default") && req.teamId().isBlank()) {
            // every read and write is scoped to a team (DESIGN.md section 7): never guess one
            throw new ApiException(403, "NoTeam", "the token has no 'team' claim: every route but GET /openapi.json and the"
                    + " console's files is scoped to a team");
        }
        Operation operation = TABLE.get(req.routeKey());
        return operation == null ? unmatched(req.method(), req.rawPath()) : operation.apply(resources, req);
    }

    /**
     * The answer to a request no route matched (API Gateway's {@code $default} route).
     *
     * @param method  the HTTP method
     * @param rawPath the path, stage prefix removed
     * @return never; always throws
     * @throws ApiException 405 {@code MethodNotAllowed} naming the allowed methods when the path is a route's with
     *                      another method, else 404 {@code NoSuchRoute} listing every route key of {@link #ALL}
     */
    static ApiResponse unmatched(String method, String rawPath) {
        TreeSet<String> allowed = new TreeSet<>();
        for (String route : ALL) {
            int space = route.indexOf(' ');
            if (matches(route.substring(space + 1), rawPath)) {
                allowed.add(route.substring(0, space));
            }
        }
        if (allowed.isEmpty()) {
            throw new ApiException(404, "NoSuchRoute", "no route " + method + " " + rawPath + "; the routes are "
                    + String.join(", ", ALL) + " (" + OPENAPI + " describes each)");
        }
        throw new ApiException(405, "MethodNotAllowed", method + " is not allowed on " + rawPath + "; allowed: "
                + String.join(", ", allowed)).withHeader("Allow", String.join(", ", allowed));
    }

    /** Whether {@code rawPath} fits the route path template ({@code /runs/{runId}} matches {@code /runs/run-1}). */
    static boolean matches(String template, String rawPath) {
        String[] t = template.split("/", -1);
        String[] p = rawPath.split("/", -1);
        if (t.length != p.length) {
            return false;
        }
        for (int i = 0; i < t.length; i++) {
            boolean param = t[i].startsWith("{") && t[i].endsWith("}");
            if (param ? p[i].isEmpty() : !t[i].equals(p[i])) {
                return false;
            }
        }
        return true;
    }
}
