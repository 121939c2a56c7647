package dev.richter.links.store;

/**
 * A direct edge as stored for listing (exits, comparisons).
 *
 * @param from calling node
 * @param to called node
 * @param fromService service of {@code from}
 * @param toService service of {@code to}
 * @param callCount calls observed over all ingests
 * @param lastSeenEpochMs last ingest that observed the edge
 */
public record StoredEdge(String from, String to, String fromService, String toService, long callCount,
                         long lastSeenEpochMs) {}
