package dev.richter.checks.safety;

import dev.richter.common.model.RegisteredService;
import dev.richter.links.datastore.DatastoreCall;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Declared datastores ({@code datastores} of {@code POST /services}: {@code {kind, production, shadow}}) as a lookup
 * from what a span names to its role: a shadow, a production target with a shadow, or neither.
 *
 * <p>Matching, by the datastore's kind: {@code table} names compare case-insensitively (SQL identifiers), whole or
 * without their schema qualifier; {@code schema} names match a table's qualifier or the call's database
 * ({@code db.name} / {@code db.namespace}, also after its last {@code ':'}, as H2 names {@code mem:shop});
 * {@code cache} names are key prefixes ({@code stock:} covers {@code stock:A1}; the longest matching prefix wins);
 * {@code dynamodb} table names and {@code topic} (or {@code queue}) names are exact. Shadows are looked up before productions, so a shadow prefix that
 * extends its production prefix ({@code stock:shadow:}) is still a shadow.
 */
final class ShadowMap {
    /** What a target is. */
    enum Role { SHADOW, PRODUCTION, UNMAPPED }

    /**
     * The role of one target.
     *
     * @param role its role
     * @param datastore the declared datastore it matched; {@code null} only for {@link Role#UNMAPPED}
     */
    record Match(Role role, RegisteredService.Datastore datastore) {
        /** The shadow a production target should have used, {@code ""} when none. */
        String shadow() {
            return datastore == null ? "" : datastore.shadow();
        }
    }

    private final List<RegisteredService.Datastore> datastores;

    private ShadowMap(List<RegisteredService.Datastore> datastores) {
        this.datastores = List.copyOf(datastores);
    }

    /** Every datastore the team's {@code services} declare. */
    static ShadowMap of(List<RegisteredService> services) {
        List<RegisteredService.Datastore> all = new ArrayList<>();
        services.forEach(s -> all.addAll(s.datastores()));
        return new ShadowMap(all);
    }

    /** The datastores one service declares. */
    static ShadowMap of(RegisteredService service) {
        return new ShadowMap(service.datastores());
    }

    /**
     * The role of {@code target} of a call of {@code kind} ({@link DatastoreCall#TABLE}, {@code CACHE}, {@code DYNAMODB}, {@code TOPIC})
     * in database {@code namespace} ({@code ""} when unknown).
     */
    Match match(String kind, String target, String namespace) {
        Optional<RegisteredService.Datastore> shadow = find(kind, target, namespace, true);
        if (shadow.isPresent()) {
            return new Match(Role.SHADOW, shadow.get());
        }
        return find(kind, target, namespace, false).map(d -> new Match(Role.PRODUCTION, d))
                .orElse(new Match(Role.UNMAPPED, null));
    }

    /** True when {@code name} is a declared shadow schema (how a schema switch stamped on a caller is recognised). */
    boolean isSchemaShadow(String name) {
        return datastores.stream().anyMatch(d -> "schema".equalsIgnoreCase(text(d.kind()))
                && name.equalsIgnoreCase(text(d.shadow())));
    }

    private Optional<RegisteredService.Datastore> find(String kind, String target, String namespace, boolean shadows) {
        RegisteredService.Datastore best = null;
        int bestLength = -1;
        for (RegisteredService.Datastore d : datastores) {
            String name = text(shadows ? d.shadow() : d.production());
            if (name.isEmpty()) {
                continue;
            }
            String dk = text(d.kind()).toLowerCase(Locale.ROOT);
            boolean hit = switch (kind) {
                case DatastoreCall.TABLE -> dk.equals("table") && tableMatches(name, target)
                        || dk.equals("schema") && schemaMatches(name, target, namespace);
                case DatastoreCall.CACHE -> dk.equals("cache") && target.startsWith(name);
                case DatastoreCall.DYNAMODB -> dk.equals("dynamodb") && target.equals(name);
                case DatastoreCall.TOPIC -> (dk.equals("topic") || dk.equals("queue")) && target.equals(name);
                default -> false;
            };
            if (hit && name.length() > bestLength) {
                best = d;
                bestLength = name.length();
            }
        }
        return Optional.ofNullable(best);
    }

    private static boolean tableMatches(String declared, String target) {
        return declared.equalsIgnoreCase(target) || declared.equalsIgnoreCase(unqualified(target));
    }

    private static boolean schemaMatches(String declared, String target, String namespace) {
        int dot = target.lastIndexOf('.');
        if (dot > 0) {
            String qualifier = target.substring(0, dot);
            return declared.equalsIgnoreCase(qualifier) || declared.equalsIgnoreCase(unqualified(qualifier));
        }
        return !namespace.isEmpty() && (declared.equalsIgnoreCase(namespace)
                || declared.equalsIgnoreCase(namespace.substring(namespace.lastIndexOf(':') + 1)));
    }

    private static String unqualified(String name) {
        return name.substring(name.lastIndexOf('.') + 1);
    }

    private static String text(String s) {
        return s == null ? "" : s.trim();
    }
}
