package dev.richter.runs;

import com.fasterxml.jackson.databind.JsonNode;
import com.jayway.jsonpath.InvalidPathException;
import com.jayway.jsonpath.JsonPath;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.TargetAddress;
import dev.richter.data.StoredSets;
import dev.richter.sizing.Prices;
import dev.richter.sizing.Quotas;
import dev.richter.sizing.RunEstimate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Whether a plan may be stored and run: every problem, each with its JSON path, in one pass. The checks, in this
 * order:
 * <ol>
 *   <li>the schema {@code openapi.json#/components/schemas/PlanInput} (only for a document; when it fails, its
 *       problems are the answer, since the checks below read the fields it guarantees);</li>
 *   <li>the registry: every scenario's {@code service} and every core module is a service the team registered
 *       ({@code $.scenarios[i].service}, {@code $.coreModules[i]}), whose {@code baseUrl} can be loaded
 *       ({@link TargetAddress#of}) and whose address is not another team's ({@code Repositories.addressOwner});</li>
 *   <li>the stored sets: a scenario's traffic set and data sets are stored by the team, no data set is bound twice,
 *       a {@code unique} data set has enough {@code ok} rows, every {@code {{data.<id>.<column>}}} names a bound set and
 *       one of its columns (DESIGN.md, "Plans use stored sets");</li>
 *   <li>the response checks: every {@code expect}'s JSONPaths compile (Jayway JsonPath, the load driver's
 *       evaluator) and its regular expressions compile ({@link Pattern}), at
 *       {@code $.scenarios[i].requests[j].expect.json[k].path|matches}, {@code ...expect.headers.<name>} and
 *       {@code $.scenarios[i].expect...};</li>
 *   <li>the pre-test's settle is at most half of its duration ({@code $.preTest.settleS}; {@link Plan#settleS});</li>
 *   <li>the team's QPS cap on the warm-up, the pre-test and every formal step ({@code $.warmUp.qps}, {@code $.preTest.qps},
 *       {@code $.formal.steps[i].qps}; DESIGN.md §7);</li>
 *   <li>the AWS limits of its run: {@link RunEstimate#violations()} against the current {@link Quotas} and
 *       {@link Prices#US_EAST_1}.</li>
 * </ol>
 * Reads the registry (services, set manifests) and nothing else; writes nothing.
 */
public final class PlanValidator {
    /** {@code {{data.<dataSetId>.<column>}}} in a request template (the load driver's {@code RequestTemplate}). */
    private static final Pattern DATA_PLACEHOLDER =
            Pattern.compile("\\{\\{\\s*data\\.([A-Za-z0-9_-]+)\\.([^}\\s]+)\\s*}}");

    private final Repositories repositories;
    private final StoredSets storedSets;
    private final ContractSchemas schemas;
    private final double maxTeamQps;
    private final Supplier<Quotas> quotas;

    /**
     * @param repositories the registry's services
     * @param storedSets   the registry's traffic and data set manifests
     * @param schemas      the schema {@code PlanInput} is read from
     * @param maxTeamQps   the highest QPS a team may plan for any step, requests per second
     * @param quotas       the limits a run must fit, read on every check
     */
    public PlanValidator(Repositories repositories, StoredSets storedSets, ContractSchemas schemas, double maxTeamQps,
                         Supplier<Quotas> quotas) {
        this.repositories = repositories;
        this.storedSets = storedSets;
        this.schemas = schemas;
        this.maxTeamQps = maxTeamQps;
        this.quotas = quotas;
    }

    /**
     * Every problem of a plan document of team {@code teamId} ({@code POST /plans}, {@code PUT /plans/{planId}}):
     * the schema's, else the registry's, the sets', the QPS cap's and the AWS limits', in that order.
     *
     * @param doc         a parsed JSON document (any JSON value: the schema check reports what is not a plan)
     * @param planId      the id the plan is stored under (its item's size counts against DynamoDB's limit)
     * @param createdAtMs the creation time it is stored with, epoch ms
     * @return the problems; empty when the plan may be stored
     */
    public List<InputProblem> problems(JsonNode doc, String teamId, String planId, long createdAtMs) {
        List<InputProblem> schemaProblems = schemas.problems("PlanInput", doc);
        if (!schemaProblems.isEmpty()) {
            return schemaProblems;
        }
        return problems(teamId, doc, PlanDocument.toPlan(doc, teamId, planId, createdAtMs));
    }

    /**
     * Every problem of a stored plan before it runs: the registry's, the sets', the QPS cap's and the AWS limits'
     * (the schema was checked when it was stored). Paths are those of the plan's document ({@link PlanDocument#fields}).
     *
     * @return the problems; empty when the plan may run
     */
    public List<InputProblem> problems(Plan plan) {
        return problems(plan.teamId(), Json.MAPPER.valueToTree(PlanDocument.fields(plan)), plan);
    }

    private List<InputProblem> problems(String teamId, JsonNode doc, Plan plan) {
        List<InputProblem> problems = new ArrayList<>();
        Map<String, RegisteredService> registered = new LinkedHashMap<>();
        JsonNode scenarios = doc.path("scenarios");
        for (int i = 0; i < scenarios.size(); i++) {
            String service = scenarios.get(i).path("service").asText();
            Optional<RegisteredService> found = lookUp(teamId, service, registered);
            if (found.isEmpty()) {
                problems.add(new InputProblem("$.scenarios[" + i + "].service",
                        "service '" + service + "' is not registered by team '" + teamId + "'"));
            } else {
                checkBaseUrl(found.get(), "$.scenarios[" + i + "].service", problems);
            }
        }
        double totalWeight = 0;
        for (JsonNode sc : scenarios) {
            totalWeight += sc.path("weight").asDouble(1.0);
        }
        double mostRequests = doc.path("preTest").path("qps").asDouble() * doc.path("preTest").path("durationS").asDouble();
        mostRequests = Math.max(mostRequests, plan.warmUpStep().qps() * plan.warmUpStep().durationS());
        for (JsonNode st : doc.path("formal").path("steps")) {
            mostRequests = Math.max(mostRequests, st.path("qps").asDouble() * st.path("durationS").asDouble());
        }
        for (int i = 0; i < scenarios.size(); i++) {
            JsonNode sc = scenarios.get(i);
            checkExpect(sc.path("expect"), "$.scenarios[" + i + "].expect", problems);
            for (int j = 0; j < sc.path("requests").size(); j++) {
                checkExpect(sc.path("requests").get(j).path("expect"), "$.scenarios[" + i + "].requests[" + j + "].expect", problems);
            }
        }
        for (int i = 0; i < scenarios.size(); i++) {
            long stepRequests = (long) Math.ceil(mostRequests * scenarios.get(i).path("weight").asDouble(1.0) / totalWeight);
            checkSets(teamId, scenarios.get(i), "$.scenarios[" + i + "]", stepRequests, problems);
        }
        JsonNode core = doc.path("coreModules");
        for (int i = 0; i < core.size(); i++) {
            String module = core.get(i).asText();
            Optional<RegisteredService> found = lookUp(teamId, module, registered);
            if (found.isEmpty()) {
                problems.add(new InputProblem("$.coreModules[" + i + "]",
                        "module '" + module + "' is not a service registered by team '" + teamId + "'"));
            } else {
                checkBaseUrl(found.get(), "$.coreModules[" + i + "]", problems);
            }
        }
        JsonNode preTest = doc.path("preTest");
        if (preTest.hasNonNull("settleS") && preTest.get("settleS").asInt() > preTest.path("durationS").asInt() / 2) {
            problems.add(new InputProblem("$.preTest.settleS", "a settle of " + preTest.get("settleS").asInt()
                    + " s is more than half of the pre-test's " + preTest.path("durationS").asInt() + " s (at most "
                    + preTest.path("durationS").asInt() / 2 + " s): the success rate must judge at least as many"
                    + " seconds as it leaves out"));
        }
        checkQpsCap(doc.path("warmUp"), "$.warmUp.qps", problems);
        checkQpsCap(doc.path("preTest"), "$.preTest.qps", problems);
        JsonNode steps = doc.path("formal").path("steps");
        for (int i = 0; i < steps.size(); i++) {
            checkQpsCap(steps.get(i), "$.formal.steps[" + i + "].qps", problems);
        }
        RunEstimate estimate = RunEstimate.of(plan, List.copyOf(registered.values()), quotas.get(), Prices.US_EAST_1);
        estimate.violations().forEach(v -> problems.add(new InputProblem(v.path(), v.reason())));
        return List.copyOf(problems);
    }

    /**
     * The team's services among the plan's scenario services and core modules, each once, in the plan's order (the
     * ones the registry lacks left out): what {@link RunEstimate#of} probes.
     */
    public List<RegisteredService> services(Plan plan) {
        Map<String, RegisteredService> services = new LinkedHashMap<>();
        plan.scenarios().forEach(s -> lookUp(plan.teamId(), s.service(), services));
        plan.coreModules().forEach(m -> lookUp(plan.teamId(), m, services));
        return List.copyOf(services.values());
    }

    /**
     * A scenario's stored sets: its traffic set and every bound data set are stored by the team (a manifest exists),
     * no data set is bound twice, and every {@code {{data.<id>.<column>}}} in its inline requests and slot templates
     * names a bound data set and one of its columns. Problems at {@code $.scenarios[i].trafficSetId},
     * {@code $.scenarios[i].data[j].dataSetId}, {@code $.scenarios[i].requests[j].path|headers.<name>|body},
     * {@code $.scenarios[i].slots.<name>}. A {@code unique} data set needs at least as many {@code ok} rows as the
     * scenario sends in its largest step ({@code stepRequests}: qps × durationS × its weight share), else rows would be
     * sent twice.
     */
    private void checkSets(String teamId, JsonNode scenario, String at, long stepRequests, List<InputProblem> problems) {
        if (scenario.hasNonNull("trafficSetId") && storedSets.manifest(teamId, "trafficset#" + scenario.get("trafficSetId").asText()).isEmpty()) {
            problems.add(new InputProblem(at + ".trafficSetId", "traffic set '" + scenario.get("trafficSetId").asText()
                    + "' is not stored by team '" + teamId + "' (POST /traffic-sets)"));
        }
        Map<String, List<String>> columns = new LinkedHashMap<>();
        JsonNode data = scenario.path("data");
        for (int j = 0; j < data.size(); j++) {
            String id = data.get(j).path("dataSetId").asText();
            var manifest = storedSets.manifest(teamId, "dataset#" + id);
            if (manifest.isEmpty()) {
                problems.add(new InputProblem(at + ".data[" + j + "].dataSetId", "data set '" + id
                        + "' is not stored by team '" + teamId + "' (POST /flows/{flowId}/runs)"));
                continue;
            }
            if (columns.containsKey(id)) {
                problems.add(new InputProblem(at + ".data[" + j + "].dataSetId", "data set '" + id + "' is bound twice"));
            }
            long okRows = manifest.get().path("counts").path("ok").asLong();
            if (data.get(j).path("mode").asText("unique").equals("unique") && okRows < stepRequests) {
                problems.add(new InputProblem(at + ".data[" + j + "].dataSetId", "data set '" + id + "' has " + okRows
                        + " ok rows but the scenario's largest step sends " + stepRequests + " requests, each needing a row of "
                        + "its own (mode unique): build more rows, or use mode sequential or random"));
            }
            List<String> cols = new ArrayList<>();
            manifest.get().path("columns").forEach(c -> cols.add(c.asText()));
            columns.put(id, cols);
        }
        BiConsumer<String, String> placeholders = (path, text) -> {
            Matcher m = DATA_PLACEHOLDER.matcher(text);
            while (m.find()) {
                boolean bound = false;
                for (JsonNode b : data) {
                    bound |= b.path("dataSetId").asText().equals(m.group(1));
                }
                if (!bound) {
                    problems.add(new InputProblem(path, m.group() + ": the scenario binds no data set '" + m.group(1) + "' (data)"));
                } else if (columns.containsKey(m.group(1)) && !columns.get(m.group(1)).contains(m.group(2))) {
                    problems.add(new InputProblem(path, m.group() + ": data set '" + m.group(1) + "' has no column '"
                            + m.group(2) + "' (columns: " + String.join(", ", columns.get(m.group(1))) + ")"));
                }
            }
        };
        JsonNode requests = scenario.path("requests");
        for (int j = 0; j < requests.size(); j++) {
            JsonNode r = requests.get(j);
            String rp = at + ".requests[" + j + "]";
            placeholders.accept(rp + ".path", r.path("path").asText());
            r.path("headers").properties().forEach(h -> placeholders.accept(rp + ".headers." + h.getKey(), h.getValue().asText()));
            if (r.hasNonNull("body")) {
                placeholders.accept(rp + ".body", r.get("body").asText());
            }
        }
        scenario.path("slots").properties().forEach(e -> placeholders.accept(at + ".slots." + e.getKey(), e.getValue().asText()));
    }

    /**
     * An {@code expect} object's JSONPaths and regular expressions compile, as the load driver compiles them: a path
     * by Jayway JsonPath ({@link JsonPath#compile}), a {@code matches} and each header's pattern by {@link Pattern}.
     * Problems at {@code <at>.json[k].path}, {@code <at>.json[k].matches}, {@code <at>.headers.<name>}.
     */
    static void checkExpect(JsonNode expect, String at, List<InputProblem> problems) {
        JsonNode json = expect.path("json");
        for (int k = 0; k < json.size(); k++) {
            JsonNode c = json.get(k);
            String path = c.path("path").asText();
            try {
                JsonPath.compile(path);
            } catch (InvalidPathException | IllegalArgumentException e) {
                problems.add(new InputProblem(at + ".json[" + k + "].path", "'" + path
                        + "' is not a JSONPath (Jayway JsonPath syntax, e.g. $.status or $.items[0].sku): " + e.getMessage()));
            }
            if (c.has("matches")) {
                regex(c.get("matches").asText(), at + ".json[" + k + "].matches", problems);
            }
        }
        expect.path("headers").properties().forEach(h -> regex(h.getValue().asText(), at + ".headers." + h.getKey(), problems));
    }

    private static void regex(String pattern, String path, List<InputProblem> problems) {
        try {
            Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            problems.add(new InputProblem(path, "'" + pattern + "' is not a regular expression (java.util.regex): "
                    + e.getDescription() + " near index " + e.getIndex()));
        }
    }

    /** The team's registered service {@code name}, from {@code seen} or the registry (then remembered in {@code seen}). */
    private Optional<RegisteredService> lookUp(String teamId, String name, Map<String, RegisteredService> seen) {
        if (seen.containsKey(name)) {
            return Optional.of(seen.get(name));
        }
        Optional<RegisteredService> found = repositories.getService(teamId, name);
        found.ifPresent(s -> seen.put(name, s));
        return found;
    }

    /**
     * A problem at the plan's reference to a registered service whose {@code baseUrl} cannot be loaded ({@link
     * TargetAddress#of}: registered before URLs were checked), or whose address is another team's ({@code
     * Repositories.addressOwner}: a team loads only addresses it owns, or that nobody has claimed yet).
     */
    private void checkBaseUrl(RegisteredService service, String path, List<InputProblem> problems) {
        TargetAddress address;
        try {
            address = TargetAddress.of(service.baseUrl());
        } catch (IllegalArgumentException e) {
            problems.add(new InputProblem(path, "service '" + service.name() + "' cannot be loaded: its baseUrl '"
                    + service.baseUrl() + "' " + e.getMessage() + "; register it again (POST /services)"));
            return;
        }
        Optional<String> owner = repositories.addressOwner(address.authority());
        if (owner.isPresent() && !owner.get().equals(service.teamId())) {
            problems.add(new InputProblem(path, "service '" + service.name() + "' loads " + address.authority()
                    + ", which another team owns (it registered a service there first): a team loads only its own"
                    + " addresses"));
        }
    }

    private void checkQpsCap(JsonNode step, String path, List<InputProblem> problems) {
        double qps = step.path("qps").asDouble();
        if (qps > maxTeamQps) {
            problems.add(new InputProblem(path, qps + " exceeds the team's QPS cap of " + maxTeamQps
                    + " (template parameter MaxTeamQps, DESIGN.md §7)"));
        }
    }
}
