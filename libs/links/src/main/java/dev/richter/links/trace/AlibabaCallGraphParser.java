package dev.richter.links.trace;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Alibaba cluster-trace-microservices call-graph CSV (alibaba/clusterdata, v2021 {@code MSCallGraph}
 * and v2022 {@code CallGraph}). Columns are found by header name, not position or file name: the
 * releases order them differently and name the call id {@code rpcid} (2021) or {@code rpc_id} (2022).
 *
 * <p>Each row is one call {@code um → dm} with call id {@code rpc_id}; the call {@code x.y} was made
 * while serving call {@code x}. A row becomes a CLIENT span of {@code um} (id {@code <rpc_id>:um},
 * parent = the SERVER span of call {@code x}) and a SERVER span of {@code dm} (id {@code <rpc_id>},
 * operation = {@code interface}, or the {@code rpctype} when empty; CONSUMER for {@code mq}).
 * A caller that is {@code USER} or unknown ({@code ""}, {@code (?)}, {@code NAN}, per the dataset
 * README) means the call came from outside: no CLIENT span, the SERVER span is a root. An unknown
 * {@code dm} skips the row ("unknown downstream microservice"); a row repeating a (trace, rpc_id)
 * — the dataset records an RPC at both ends — is skipped as a duplicate; a row with too few columns
 * is skipped ("short csv row"). {@code timestamp} and {@code rt} are milliseconds ({@code |rt|} is used); a row whose
 * start or end falls outside what a {@code long} of epoch nanoseconds holds is skipped as
 * {@value EpochNanos#OUT_OF_RANGE} ({@link EpochNanos}).
 */
final class AlibabaCallGraphParser {
    static final String UNKNOWN_DM = "unknown downstream microservice";
    static final String SHORT_ROW = "short csv row";

    private AlibabaCallGraphParser() {}

    /** True when the first line names the columns this parser needs. */
    static boolean looksLikeHeader(String firstLine) {
        Set<String> cols = new HashSet<>(List.of(firstLine.strip().toLowerCase(Locale.ROOT).split(",", -1)));
        return cols.contains("traceid") && (cols.contains("rpc_id") || cols.contains("rpcid"))
                && cols.contains("um") && cols.contains("dm");
    }

    static void parse(String fileName, byte[] bytes, SpanCollector out) {
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.startsWith("\uFEFF")) {
            text = text.substring(1);
        }
        String[] lines = text.split("\r?\n", -1);
        String[] header = lines[0].strip().toLowerCase(Locale.ROOT).split(",", -1);
        Map<String, Integer> col = new HashMap<>();
        for (int i = 0; i < header.length; i++) {
            col.put(header[i], i);
        }
        int trace = col.get("traceid");
        int rpc = col.containsKey("rpc_id") ? col.get("rpc_id") : col.get("rpcid");
        int um = col.get("um");
        int dm = col.get("dm");
        int iface = col.getOrDefault("interface", -1);
        int type = col.getOrDefault("rpctype", -1);
        int rt = col.getOrDefault("rt", -1);
        int ts = col.getOrDefault("timestamp", -1);
        int need = Math.max(Math.max(trace, rpc), Math.max(um, dm));
        Set<String> seen = new HashSet<>();
        for (int n = 1; n < lines.length; n++) {
            String line = lines[n];
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split(",", -1);
            if (f.length <= need) {
                out.skip(SHORT_ROW);
                continue;
            }
            String traceId = TraceIds.datasetTraceId(f[trace]);
            String rpcId = f[rpc].strip();
            String caller = f[um].strip();
            String callee = f[dm].strip();
            if (unknown(callee)) {
                out.skip(UNKNOWN_DM);
                continue;
            }
            long startNanos;
            long durationNanos;
            try {
                startNanos = EpochNanos.ofMillis(number(f, ts));
                durationNanos = EpochNanos.ofMillis(Math.abs(number(f, rt)));
                EpochNanos.end(startNanos, durationNanos);
            } catch (ArithmeticException e) {
                out.skip(EpochNanos.OUT_OF_RANGE);
                continue;
            }
            if (!seen.add(traceId + '/' + rpcId)) {
                out.skip(SpanCollector.DUPLICATE);
                continue;
            }
            String rpcType = type >= 0 && type < f.length ? f[type].strip() : "";
            String operation = iface >= 0 && iface < f.length && !f[iface].isBlank() ? f[iface].strip() : rpcType;
            int dot = rpcId.lastIndexOf('.');
            String parentCall = dot > 0 ? rpcId.substring(0, dot) : "";
            Map<String, String> attrs = Map.of("alibaba.rpctype", rpcType, "alibaba.rpc_id", rpcId);
            String serverParent = "";
            if (!unknown(caller) && !"USER".equalsIgnoreCase(caller)) {
                String clientId = rpcId + ":um";
                SpanKind clientKind = "mq".equalsIgnoreCase(rpcType) ? SpanKind.PRODUCER : SpanKind.CLIENT;
                out.add(new Span(traceId, clientId, parentCall, List.of(), caller, operation, clientKind, callee,
                        attrs, startNanos, durationNanos));
                serverParent = clientId;
            }
            SpanKind serverKind = "mq".equalsIgnoreCase(rpcType) ? SpanKind.CONSUMER : SpanKind.SERVER;
            out.add(new Span(traceId, rpcId, serverParent, List.of(), callee, operation, serverKind, "", attrs,
                    startNanos, durationNanos));
        }
    }

    private static boolean unknown(String name) {
        return name.isEmpty() || "(?)".equals(name) || "NAN".equalsIgnoreCase(name) || "UNKNOWN".equalsIgnoreCase(name)
                || "UNAVAILABLE".equalsIgnoreCase(name);
    }

    private static double number(String[] f, int i) {
        if (i < 0 || i >= f.length || f[i].isBlank()) {
            return 0;
        }
        try {
            double d = Double.parseDouble(f[i].strip());
            return Double.isNaN(d) ? 0 : d;
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
