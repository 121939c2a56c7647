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
 * marked call still names its production target. A marked write Richter's extension refused leaves no call span, but
 * its refusal ({@link DatastoreCall#REFUSED}) is evidence of the write: the extension names the targets in quotes and
 * ends with their kind, {@code ... '<name>'[, '<name>'...], which has no shadow <noun> (kind <kind>)} (or {@code which
 * no shadow prefix (kind cache) maps}), and each becomes a written datastore of that kind. A call whose targets cannot be read (a statement that does not
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
        Map<String, DiscoveredDatastore> refused = new LinkedHashMap<>();
        for (Span s : spans) {
            String refusal = s.attributes().get(DatastoreCall.REFUSED);
            if (refusal != null) {
                refusedWrite(refused, s, refusal);
            }
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
        for (DiscoveredDatastore r : refused.values()) {
            // a call span of the same datastore names its database: the refusal's write joins that entry
            Optional<String> same = out.entrySet().stream().filter(e -> e.getValue().service().equals(r.service())
                    && e.getValue().kind().equals(r.kind()) && e.getValue().name().equalsIgnoreCase(r.name()))
                    .map(Map.Entry::getKey).findFirst();
            if (same.isPresent()) {
                out.computeIfPresent(same.get(), (k, d) -> new DiscoveredDatastore(d.service(), d.kind(), d.name(),
                        d.system(), d.namespace(), true, Math.max(d.lastSeenMs(), r.lastSeenMs())));
            } else {
                out.merge(r.key(), r, DiscoveredDatastore::merge);
            }
        }
        return new ArrayList<>(out.values());
    }

    /** {@code '<name>'(, '<name>')*, which (has no shadow <noun>|no shadow prefix) (kind <kind>)} of a refusal. */
    private static final java.util.regex.Pattern REFUSED_STORE = java.util.regex.Pattern.compile(
            "'([^']+)'((?:, '[^']+')*), which (?:has no shadow [\\w-]+|no shadow prefix) \\(kind ([\\w-]+)\\)");

    private static void refusedWrite(Map<String, DiscoveredDatastore> out, Span s, String refusal) {
        java.util.regex.Matcher m = REFUSED_STORE.matcher(refusal);
        if (!m.find()) {
            return;
        }
        String kind = m.group(3);
        List<String> names = new ArrayList<>(List.of(m.group(1)));
        java.util.regex.Matcher more = java.util.regex.Pattern.compile("'([^']+)'").matcher(m.group(2));
        while (more.find()) {
            names.add(more.group(1));
        }
        long seenMs = s.startEpochNanos() / 1_000_000L;
        for (String target : names) {
            String name = DatastoreCall.CACHE.equals(kind) ? RedisCommands.keySpace(target) : target;
            if (name.isEmpty() || name.length() > MAX_NAME_CHARS) {
                continue;
            }
            DiscoveredDatastore d = new DiscoveredDatastore(s.service(), kind, name,
                    s.attributes().getOrDefault("db.system", ""), "", true, seenMs);
            out.merge(d.key(), d, DiscoveredDatastore::merge);
        }
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
