package dev.richter.data.traffic;

import java.util.List;
import java.util.Map;

/**
 * Replayable requests imported from one recording, grouped by endpoint, with personal data replaced by slots
 * ({@link PiiScrubber}). Stored by {@link TrafficSetStore}; described by {@code openapi.json} ({@code TrafficSet}).
 *
 * @param setId       the set's id ({@code ts-...}); empty before it is stored
 * @param teamId      the owning team; empty before it is stored
 * @param name        the imported file's name
 * @param format      {@code har}, {@code nginx}, {@code apache} or {@code alb}
 * @param createdAtMs when it was imported, epoch milliseconds
 * @param counts      what the import did with each entry
 * @param endpoints   the endpoint mix (host, method, path template), most frequent first
 * @param skipped     entries that are not replayable, by reason ({@code websocket}, {@code data-url},
 *                    {@code non-http-scheme}, {@code redirect-hop}, {@code no-response}, {@code from-cache}, {@code no-request-line}, {@code malformed-request})
 * @param problems    entries or lines that could not be read, at most {@link TrafficImporter#MAX_PROBLEMS}
 *                    ({@code counts.problems} has them all)
 */
public record TrafficSet(String setId, String teamId, String name, String format, long createdAtMs, ImportCounts counts,
                         List<Endpoint> endpoints, Map<String, Integer> skipped, List<ImportProblem> problems) {
    public TrafficSet {
        endpoints = List.copyOf(endpoints);
        skipped = Map.copyOf(skipped);
        problems = List.copyOf(problems);
    }

    /** This set under an id and team, imported at {@code createdAtMs}. */
    public TrafficSet identified(String setId, String teamId, long createdAtMs) {
        return new TrafficSet(setId, teamId, name, format, createdAtMs, counts, endpoints, skipped, problems);
    }

    /** This set without its endpoints' samples: what lists show. */
    public TrafficSet summary() {
        return new TrafficSet(setId, teamId, name, format, createdAtMs, counts,
                endpoints.stream().map(e -> new Endpoint(e.host(), e.method(), e.pathTemplate(), e.count(), e.weight(), List.of())).toList(),
                skipped, problems);
    }

    /**
     * @param entriesRead    entries (HAR) or non-blank lines (logs) in the file
     * @param imported       requests imported (the sum of the endpoints' counts)
     * @param skipped        entries not replayable (the sum of {@code skipped})
     * @param problems       entries or lines that could not be read
     * @param scrubbedValues values replaced by slots
     * @param decodeErrors   bodies kept as recorded because they did not decode (base64 that is not, gzip that is not)
     */
    public record ImportCounts(int entriesRead, int imported, int skipped, int problems, int scrubbedValues, int decodeErrors) {}

    /**
     * One endpoint of the mix.
     *
     * @param host         the host the requests went to (empty when the recording does not say); replay sends them
     *                     to the scenario's service instead
     * @param method       HTTP method
     * @param pathTemplate normalised path ({@link PathNormalizer}), e.g. {@code /users/{id}}
     * @param count        requests to it in the recording
     * @param weight       its share of the imported requests, {@code count / imported}, 0..1
     * @param samples      up to {@link TrafficImporter#MAX_SAMPLES_PER_ENDPOINT} requests as recorded (scrubbed), in
     *                     recording order
     */
    public record Endpoint(String host, String method, String pathTemplate, int count, double weight, List<Sample> samples) {
        public Endpoint {
            samples = List.copyOf(samples);
        }
    }

    /**
     * One replayable request.
     *
     * @param method       HTTP method
     * @param target       path and query, scrubbed values as slots, e.g. {@code /users/42?access_token={{slot:query.access_token}}}
     * @param headers      request headers (scrubbed)
     * @param body         the body: UTF-8 text, or base64 of the bytes when they are not UTF-8; empty for none
     * @param bodyEncoding {@code none}, {@code text} or {@code base64}
     * @param contentType  the body's media type, empty when unknown
     * @param slots        slot names in the request, in order, e.g. {@code ["header.authorization", "email"]}
     * @param notes        what was kept as recorded and why (decode errors)
     * @param response     the recorded response (status, type, size, a decode error with the raw body)
     * @param source       where it was read, {@code file:line} or {@code file:$.log.entries[i]}
     */
    public record Sample(String method, String target, List<Header> headers, String body, String bodyEncoding,
                         String contentType, List<String> slots, List<String> notes, RecordedResponse response,
                         String source) {
        public Sample {
            headers = List.copyOf(headers);
            slots = List.copyOf(slots);
            notes = List.copyOf(notes);
        }
    }
}
