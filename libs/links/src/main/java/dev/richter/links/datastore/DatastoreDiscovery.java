package dev.richter.links.datastore;

import dev.richter.links.trace.Span;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The datastores each service's spans touch ({@link DatastoreCall#of}): tables with their database, Redis key spaces,
 * topics. Marked and unmarked spans alike: the agent's attributes name what the application asked for, so a routed
 * marked call still names its production target. A call whose targets cannot be read (a statement that does not
 * parse) adds nothing, nor does a schema statement ({@link DatastoreCall#schema}: a table only created at boot
 * is none the service uses); names longer than {@value #MAX_NAME_CHARS} characters are skipped (no table or topic is named
 * so; such a "key space" is a key without structure).
 */
public final class DatastoreDiscovery {
    /** Longest name recorded. */
    public static final int MAX_NAME_CHARS = 256;

    private DatastoreDiscovery() {}

    /** Distinct datastores of {@code spans} in order of first sighting, each with its latest sighting and writes or-ed. */
    public static List<DiscoveredDatastore> discover(List<Span> spans) {
        Map<String, DiscoveredDatastore> out = new LinkedHashMap<>();
        for (Span s : spans) {
            Optional<DatastoreCall> call = DatastoreCall.of(s);
            if (call.isEmpty() || call.get().control() || call.get().schema()) {
                continue;
            }
            DatastoreCall c = call.get();
            long seenMs = s.startEpochNanos() / 1_000_000L;
            for (String target : c.written()) {
                add(out, s.service(), c, target, true, seenMs);
            }
            for (String target : c.read()) {
                add(out, s.service(), c, target, false, seenMs);
            }
        }
        return new ArrayList<>(out.values());
    }

    private static void add(Map<String, DiscoveredDatastore> out, String service, DatastoreCall c, String target,
                            boolean writes, long seenMs) {
        String name = DatastoreCall.CACHE.equals(c.kind()) ? RedisCommands.keySpace(target) : target;
        if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
            return;
        }
        DiscoveredDatastore d = new DiscoveredDatastore(service, c.kind(), name, c.system(),
                DatastoreCall.TABLE.equals(c.kind()) ? c.namespace() : "", writes, seenMs);
        out.merge(d.key(), d, DiscoveredDatastore::merge);
    }
}
