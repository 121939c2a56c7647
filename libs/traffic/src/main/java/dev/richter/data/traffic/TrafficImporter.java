package dev.richter.data.traffic;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Imports one recording into a {@link TrafficSet}: reads it ({@link HarReader}, {@link AccessLogReader},
 * {@link AlbLogReader}), scrubs every request ({@link PiiScrubber}) before anything else sees it, normalises paths
 * ({@link PathNormalizer}) and groups the requests by host, method and path template, weighted by frequency
 * ({@code weight = count / imported}, rounded to 6 decimals).
 */
public final class TrafficImporter {
    /** Samples kept per endpoint (the first ones in recording order). */
    public static final int MAX_SAMPLES_PER_ENDPOINT = 20;
    /** Problems kept in a set (all are counted). */
    public static final int MAX_PROBLEMS = 100;

    /** The formats {@code POST /traffic-sets?format=} accepts. */
    public enum Format {
        /** HAR 1.2 JSON. */
        HAR,
        /** nginx: {@code combined} (or Apache {@code common}), or the {@code log_format} directive given. */
        NGINX,
        /** Apache {@code combined} or {@code common} ({@code LogFormat} {@code %h %l %u %t "%r" %>s %b ...}). */
        APACHE,
        /** AWS Application Load Balancer access logs. */
        ALB;

        /** @throws IllegalArgumentException naming the accepted values when {@code text} is none of them */
        public static Format parse(String text) {
            try {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("'" + text + "' is not one of har, nginx, apache, alb");
            }
        }

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private TrafficImporter() {}

    /**
     * @param format    the recording's format
     * @param file      its name (positions, and the set's {@code name})
     * @param bytes     its bytes
     * @param logFormat for {@link Format#NGINX} only: an nginx {@code log_format} directive to read the lines by
     *                  instead of {@code combined}; null or blank for the predefined formats
     * @return the set, without id and team ({@link TrafficSet#identified})
     * @throws TrafficFormatException when the file is not of the format, or nothing in it is replayable (with the
     *                                problems found, each {@code file:line} or {@code file:JSON path})
     */
    public static TrafficSet importFile(Format format, String file, byte[] bytes, String logFormat) {
        ReadResult read = switch (format) {
            case HAR -> HarReader.read(file, bytes);
            case NGINX -> AccessLogReader.read(file, bytes, logFormat == null || logFormat.isBlank()
                    ? List.of(LogFormat.COMBINED, LogFormat.COMMON) : List.of(LogFormat.parseDirective(logFormat)));
            case APACHE -> AccessLogReader.read(file, bytes, List.of(LogFormat.COMBINED, LogFormat.COMMON));
            case ALB -> AlbLogReader.read(file, bytes);
        };
        if (read.requests().isEmpty()) {
            if (!read.problems().isEmpty()) {
                throw new TrafficFormatException(read.problems().subList(0, Math.min(MAX_PROBLEMS, read.problems().size())));
            }
            throw new TrafficFormatException(file, "no replayable request in " + read.entriesRead() + " entries"
                    + (read.skipped().isEmpty() ? "" : " (skipped: " + new TreeMap<>(read.skipped()) + ")"));
        }
        Map<String, List<TrafficSet.Sample>> samples = new LinkedHashMap<>();
        Map<String, Integer> counts = new LinkedHashMap<>();
        int scrubbed = 0;
        int decodeErrors = 0;
        for (RecordedRequest r : read.requests()) {
            PiiScrubber.Scrubbed s = PiiScrubber.scrub(r);
            scrubbed += s.slots().size();
            decodeErrors += (int) r.notes().stream().filter(n -> n.contains("not base64") || n.contains("not valid gzip")).count();
            RecordedRequest q = s.request();
            String key = q.host() + " " + q.method() + " " + PathNormalizer.template(q.target());
            counts.merge(key, 1, Integer::sum);
            List<TrafficSet.Sample> list = samples.computeIfAbsent(key, k -> new ArrayList<>());
            if (list.size() < MAX_SAMPLES_PER_ENDPOINT) {
                list.add(sample(q, s.slots()));
            }
        }
        int imported = read.requests().size();
        List<TrafficSet.Endpoint> endpoints = new ArrayList<>();
        for (var e : counts.entrySet()) {
            String[] k = e.getKey().split(" ", 3);
            double weight = Math.round(e.getValue() * 1_000_000.0 / imported) / 1_000_000.0;
            endpoints.add(new TrafficSet.Endpoint(k[0], k[1], k[2], e.getValue(), weight, samples.get(e.getKey())));
        }
        endpoints.sort(Comparator.comparingInt(TrafficSet.Endpoint::count).reversed());
        int skipped = read.skipped().values().stream().mapToInt(Integer::intValue).sum();
        return new TrafficSet("", "", file, format.wireName(), 0,
                new TrafficSet.ImportCounts(read.entriesRead(), imported, skipped, read.problems().size(), scrubbed, decodeErrors),
                endpoints, read.skipped(), read.problems().subList(0, Math.min(MAX_PROBLEMS, read.problems().size())));
    }

    private static TrafficSet.Sample sample(RecordedRequest r, List<String> slots) {
        String body;
        String encoding;
        if (r.body().length == 0) {
            body = "";
            encoding = "none";
        } else {
            try {
                body = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(r.body())).toString();
                encoding = "text";
            } catch (CharacterCodingException e) {
                body = Base64.getEncoder().encodeToString(r.body());
                encoding = "base64";
            }
        }
        return new TrafficSet.Sample(r.method(), r.target(), r.headers(), body, encoding, r.contentType(), slots,
                r.notes(), r.response(), r.source());
    }
}
