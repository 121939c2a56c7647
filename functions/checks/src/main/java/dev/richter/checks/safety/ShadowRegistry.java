package dev.richter.checks.safety;

import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The storage targets known to exist, with their schema versions: what the shadow-storage check
 * verifies a service's declared datastores against (e.g. read from the team's infrastructure
 * inventory: DynamoDB tables, database schemas with their migration version, cache key prefixes,
 * topics with their message schema version).
 *
 * @param targets known targets; (kind, name) pairs are unique, compared case-insensitively on kind
 * @throws IllegalArgumentException on a duplicate (kind, name)
 */
public record ShadowRegistry(List<StorageTarget> targets) {
    public ShadowRegistry {
        targets = List.copyOf(targets);
        for (int i = 0; i < targets.size(); i++) {
            for (int j = i + 1; j < targets.size(); j++) {
                if (targets.get(i).same(targets.get(j))) {
                    throw new IllegalArgumentException("targets[" + j + "]: duplicate " + targets.get(j).kind() + " "
                            + targets.get(j).name());
                }
            }
        }
    }

    /** The target of {@code kind} named {@code name}, if known. */
    public Optional<StorageTarget> find(String kind, String name) {
        StorageTarget probe = new StorageTarget(kind, name, "");
        return targets.stream().filter(t -> t.same(probe)).findFirst();
    }

    /**
     * One storage target.
     *
     * @param kind as in {@code RegisteredService.Datastore.kind}: {@code table}, {@code schema},
     *     {@code cache} (a key prefix), {@code topic} (or {@code queue})
     * @param name table / schema / key prefix / topic name, exact
     * @param schemaVersion the target's schema version (migration id, Avro schema version…); {@code ""} if unknown
     */
    public record StorageTarget(String kind, String name, String schemaVersion) {
        public StorageTarget {
            kind = kind == null ? "" : kind.trim();
            name = name == null ? "" : name.trim();
            schemaVersion = schemaVersion == null ? "" : schemaVersion.trim();
        }

        boolean same(StorageTarget o) {
            return kind.toLowerCase(Locale.ROOT).equals(o.kind.toLowerCase(Locale.ROOT)) && name.equals(o.name);
        }
    }
}
