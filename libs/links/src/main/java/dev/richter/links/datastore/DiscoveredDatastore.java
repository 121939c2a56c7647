package dev.richter.links.datastore;

/**
 * A datastore a service was seen touching in its traces (recorded by the link builder at every ingest, {@link
 * DatastoreDiscovery}), as {@code GET /services/{name}} answers it in {@code discovered}.
 *
 * @param service the service whose span touched it ({@code service.name})
 * @param kind {@value DatastoreCall#TABLE}, {@value DatastoreCall#CACHE} (a Redis key space) or {@value
 *     DatastoreCall#TOPIC}
 * @param name the table as the application named it (schema-qualified when it qualified it), the key space (the key up
 *     to and including its last {@code ':'}, e.g. {@code stock:}), or the topic
 * @param system {@code db.system} / {@code db.system.name} or {@code messaging.system}, e.g. {@code postgresql},
 *     {@code redis}, {@code kafka}
 * @param namespace the database of a table ({@code db.name} / {@code db.namespace}), {@code ""} otherwise or when not
 *     recorded
 * @param writes true once any span seen wrote to it (a datastore only ever read looks like reference data)
 * @param lastSeenMs the latest start, epoch ms, of a span that touched it
 */
public record DiscoveredDatastore(String service, String kind, String name, String system, String namespace,
                                  boolean writes, long lastSeenMs) {
    /** Identity within a team: service, kind, namespace and name (tables case-insensitively, as SQL compares them). */
    public String key() {
        String n = DatastoreCall.TABLE.equals(kind) ? name.toLowerCase(java.util.Locale.ROOT) : name;
        String ns = DatastoreCall.TABLE.equals(kind) ? namespace.toLowerCase(java.util.Locale.ROOT) : "";
        return service.length() + ":" + service + "#" + kind + "#" + ns + "#" + n;
    }

    /** This entry merged with a later sighting of the same datastore: writes or-ed, the latest time kept. */
    public DiscoveredDatastore merge(DiscoveredDatastore other) {
        return new DiscoveredDatastore(service, kind, name, other.system.isEmpty() ? system : other.system, namespace,
                writes || other.writes, Math.max(lastSeenMs, other.lastSeenMs));
    }
}
