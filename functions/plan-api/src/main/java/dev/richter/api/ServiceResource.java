package dev.richter.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.AuditLog;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.net.AllowedNetworks;
import dev.richter.common.model.Plan;
import dev.richter.common.model.RegisteredService;
import dev.richter.common.model.TargetAddress;
import dev.richter.runs.InputProblem;
import dev.richter.runs.RunLeases;
import dev.richter.common.tls.TlsTrust;
import dev.richter.links.LinkService;
import java.util.List;
import java.util.Map;

/**
 * {@code /services}: the team's registry of services under test ({@code ServiceInput} and {@code Service} in
 * openapi.json). Every write is audited with before and after.
 */
final class ServiceResource {
    private final Repositories repositories;
    private final PlanStore store;
    private final RunLeases leases;
    private final AuditLog audit;
    private final InputValidator validator;
    private final LinkService links;
    private final AllowedNetworks networks;

    ServiceResource(Repositories repositories, PlanStore store, RunLeases leases, AuditLog audit, InputValidator validator,
                    LinkService links, AllowedNetworks networks) {
        this.networks = networks;
        this.links = links;
        this.repositories = repositories;
        this.store = store;
        this.leases = leases;
        this.audit = audit;
        this.validator = validator;
    }

    /**
     * {@code POST /services}: registers a service or replaces the team's service of that name ({@code baseUrl}
     * without its trailing slash; a {@code caPem} must parse as PEM certificates).
     *
     * <p>An address ({@code <host>:<port>} of the base URL, {@link TargetAddress#authority}) belongs to one team: the
     * first to register a service there owns it until its last service there is deleted or moved
     * ({@code Repositories.claimAddress}). Host names are not resolved, so two names of one host are two addresses.
     *
     * @return 201 when new, 200 when replaced, with the service and {@code Location: /services/<name>}
     * @throws ApiException 409 {@code AddressOwned} when another team owns the base URL's address (the other team is
     *                      not named); 400 {@code ValidationFailed} (schema; {@code $.baseUrl} that cannot be loaded, by the rules
     *                      of {@link TargetAddress#of}, or whose host the deployment's networks refuse, by {@link
     *                      AllowedNetworks#registrationRefusal}; {@code $.caPem})
     */
    ApiResponse register(ApiRequest req) {
        JsonNode doc = validator.parse("ServiceInput", req.body(), this::baseUrlProblems);
        RegisteredService service = Json.MAPPER.convertValue(doc, RegisteredService.class);
        if (service.caPem() != null) {
            try {
                TlsTrust.parseCaPem(service.caPem());
            } catch (IllegalArgumentException e) {
                throw ApiException.badField("$.caPem", e.getMessage().replaceFirst("^caPem: ", ""));
            }
        }
        service = new RegisteredService(req.teamId(), service.name(), stripSlash(service.baseUrl()), service.healthPath(),
                service.prometheusPath(), service.datastores(), service.caPem(), service.grpc());
        var before = repositories.getService(req.teamId(), service.name()).orElse(null);
        String authority = TargetAddress.of(service.baseUrl()).authority();
        if (!repositories.claimAddress(req.teamId(), authority)) {
            throw new ApiException(409, "AddressOwned", "$.baseUrl: " + service.baseUrl() + " loads " + authority
                    + ", which another team has registered: an address belongs to one team (its runs, probes and"
                    + " leases); ask that team to delete its service there, or your Richter administrators");
        }
        try {
            repositories.putService(service);
        } catch (RuntimeException e) {
            // the service was not stored: a claim made for it alone would hold the address with no service there
            releaseUnused(req.teamId(), authority);
            throw e;
        }
        if (before != null) {
            releaseUnused(req.teamId(), TargetAddress.of(before.baseUrl()).authority());
        }
        audit.record(req.teamId(), req.caller(), "RegisterService", "service#" + service.name(),
                before == null ? null : Documents.service(before), Documents.service(service));
        Map<String, Object> answer = Documents.service(service);
        answer.put("ownership", ownership(service));
        return new ApiResponse(before == null ? 201 : 200, "application/json", Json.write(answer),
                Map.of("Location", "/services/" + service.name()));
    }

    /** {@code GET /services}: the team's services by name, a page at a time ({@link Cursor}). */
    ApiResponse list(ApiRequest req) {
        return Cursor.respond(req, "services:" + req.teamId(), Map.entry("teamId", req.teamId()),
                (limit, start) -> store.services(req.teamId(), limit, start), Documents::service);
    }

    /**
     * {@code GET /services/{name}}: 200 with the service and, next to its declared {@code datastores}, the ones its
     * traces showed it touching ({@code discovered: [{kind, name, system, namespace?, writes, lastSeenMs}]}, from
     * every trace ingest of the team's real traffic: {@code LinkService.datastores}), and the clients, stores and
     * servers its traces showed it using ({@code middleware: [{library, versions?, role, scopeName?, scopeVersion?,
     * system?, guarded, seenOnMarkedTraffic, calls, markedCalls, markedCallsIsolated, lastSeenMs}]}, {@code
     * LinkService.middleware}); 404 when the team has none of that name.
     */
    ApiResponse get(ApiRequest req) {
        String name = req.path("name");
        RegisteredService s = repositories.getService(req.teamId(), name).orElseThrow(() -> ApiException.notFound("service", name));
        Map<String, Object> doc = Documents.service(s);
        doc.put("discovered", links.datastores(req.teamId()).getOrDefault(name, List.of()).stream()
                .map(Documents::discoveredDatastore).toList());
        doc.put("middleware", links.middleware(req.teamId()).getOrDefault(name, List.of()).stream()
                .map(Documents::middlewareUse).toList());
        doc.put("ownership", ownership(s));
        return ApiResponse.json(200, doc);
    }

    /**
     * {@code DELETE /services/{name}}: deletes a registered service: 204.
     *
     * @throws ApiException 404 when absent; 409 {@code ServiceInUse} while a run holds its lease or a plan of the team
     *                      names it (the plans are named: change or delete them first)
     */
    ApiResponse delete(ApiRequest req) {
        String name = req.path("name");
        RegisteredService s = repositories.getService(req.teamId(), name).orElseThrow(() -> ApiException.notFound("service", name));
        leases.holder(req.teamId(), name).ifPresent(l -> {
            throw new ApiException(409, "ServiceInUse", "service '" + name + "' is in use by run " + l.runId() + " (plan "
                    + l.planId() + "): delete it after that run ends");
        });
        List<String> plans = store.allPlans(req.teamId()).stream().filter(p -> RunLeases.targets(p).contains(name))
                .map(Plan::planId).toList();
        if (!plans.isEmpty()) {
            throw new ApiException(409, "ServiceInUse", "service '" + name + "' is named by plans " + plans
                    + ": change or delete them first");
        }
        store.deleteService(req.teamId(), name);
        releaseUnused(req.teamId(), TargetAddress.of(s.baseUrl()).authority());
        audit.record(req.teamId(), req.caller(), "DeleteService", "service#" + name, Documents.service(s), null);
        return ApiResponse.noContent();
    }

    /**
     * How the service shows that its team runs it, before a formal step loads it (the {@code target-owned} check):
     * {@code {path, token, isolationLoadedAtMs?}}. It answers {@code token} (text) at {@code path} of its base URL
     * ({@code MarkerProof.ownershipToken}, from the team's newest marker key), or its Richter extension loads the
     * team's isolation document naming it ({@code GET /safety/isolation?service=<name>}), whose last time is shown.
     */
    private Map<String, Object> ownership(RegisteredService service) {
        Map<String, Object> out = new java.util.LinkedHashMap<>();
        out.put("path", dev.richter.sdk.MarkerProof.OWNERSHIP_PATH);
        out.put("token", dev.richter.sdk.MarkerProof.ownershipToken(
                repositories.ensureMarkerKeys(service.teamId()).get(0), service.teamId(), service.name()));
        repositories.isolationLoadedAtMs(service.teamId(), service.name()).ifPresent(at -> out.put("isolationLoadedAtMs", at));
        return out;
    }

    /** Gives up the team's ownership of {@code authority} when none of its services loads it any more. */
    private void releaseUnused(String teamId, String authority) {
        boolean used = repositories.listServices(teamId).stream()
                .anyMatch(other -> TargetAddress.of(other.baseUrl()).authority().equals(authority));
        if (!used) {
            repositories.releaseAddress(teamId, authority);
        }
    }

    /** {@code $.baseUrl}'s problem when it is a string that {@link TargetAddress#of} refuses. */
    private List<InputProblem> baseUrlProblems(JsonNode doc) {
        JsonNode url = doc.path("baseUrl");
        if (!url.isTextual()) {
            return List.of();
        }
        try {
            TargetAddress target = TargetAddress.of(url.asText());
            return networks.registrationRefusal(target.host()).map(r -> List.of(new InputProblem("$.baseUrl", r)))
                    .orElse(List.of());
        } catch (IllegalArgumentException e) {
            return List.of(new InputProblem("$.baseUrl", e.getMessage()));
        }
    }

    private static String stripSlash(String url) {
        return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }
}
