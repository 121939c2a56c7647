package dev.richter.links.trace;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Two kinds of bug in the times a reader gives a span, each found by PublicFixturesTest on the X-Ray fixtures and fixed
 * in every reader it can occur in:
 * <ul>
 *   <li>an X-Ray segment or subsegment without its required times (a numeric {@code start_time}, and a numeric
 *       {@code end_time} unless {@code in_progress}) is skipped and counted, never read as starting at the epoch
 *       (segmentValidationFailed.txt);</li>
 *   <li>a time outside what epoch nanoseconds in a {@code long} hold (1677-09-21 to 2262-04-11), or, for OTLP's unsigned
 *       nanoseconds, a negative one, skips its span and is counted, in every reader that converts a unit to
 *       nanoseconds: X-Ray seconds, Zipkin and Jaeger microseconds, Alibaba milliseconds, OTLP nanoseconds past
 *       {@code Long.MAX_VALUE} (indepSubsegmentWithContentLengthString.txt wrapped to 1853).</li>
 * </ul>
 */
class SpanTimesTest {
    private static final String NO_TIMES = "xray segment without a numeric start_time or end_time";
    private static final String OUT_OF_RANGE = "time out of range";
    private static final String TRACE = "1-5f2aebcc-b475d14618c51eaa28753d37";
    /** The last microsecond a {@code long} of epoch nanoseconds holds: 2262-04-11T23:47:16.854775Z. */
    private static final long LAST_MICROSECOND = Long.MAX_VALUE / 1000;

    /**
     * Every (sub)segment without a numeric {@code start_time}, or without a numeric {@code end_time} while not
     * {@code in_progress}, is skipped with the reason; the (sub)segments under a skipped one are read, under its id and
     * with its service, an independent subsegment of a skipped segment too.
     */
    @Test
    void anXRaySegmentWithoutItsRequiredTimesIsSkippedAndCountedAndWhatIsUnderItIsRead() {
        String doc = """
                {"trace_id":"%1$s","id":"0000000000000001","name":"svc","start_time":1596566305.5,"end_time":1596566305.9,
                 "subsegments":[
                  {"id":"0000000000000002","name":"no-start","end_time":1596566305.6},
                  {"id":"0000000000000003","name":"start-as-text","start_time":"1596566305.5","end_time":1596566305.6},
                  {"id":"0000000000000004","name":"no-end","start_time":1596566305.5},
                  {"id":"0000000000000005","name":"in-progress","start_time":1596566305.5,"in_progress":true},
                  {"id":"0000000000000006","name":"end-null","start_time":1596566305.5,"end_time":null},
                  {"id":"0000000000000007","name":"ok","start_time":1596566305.5,"end_time":1596566305.75,
                   "subsegments":[{"id":"0000000000000008","name":"inner-no-start","start_time":null,"end_time":1596566305.6}]}]}
                {"trace_id":"%1$s","id":"0000000000000009","name":"svc2","end_time":1596566305.9,
                 "subsegments":[{"id":"000000000000000a","name":"child","start_time":1596566305.5,"end_time":1596566305.6}]}
                {"type":"subsegment","trace_id":"%1$s","id":"000000000000000b","parent_id":"0000000000000009","name":"indep",
                 "start_time":{"s":1},"end_time":1596566305.6}
                {"type":"subsegment","trace_id":"%1$s","id":"000000000000000c","parent_id":"000000000000000b","name":"indep-child",
                 "start_time":1596566305.5,"end_time":1596566305.6}
                """.formatted(TRACE);
        ParsedTraces p = parse(doc);
        assertEquals(Map.of(NO_TIMES, 7), p.skippedByReason());
        assertEquals(List.of(
                        List.of("0000000000000001", "", "svc", 1_596_566_305_500_000_000L, 400_000_000L),
                        List.of("0000000000000005", "0000000000000001", "svc", 1_596_566_305_500_000_000L, 0L),
                        List.of("0000000000000007", "0000000000000001", "svc", 1_596_566_305_500_000_000L, 250_000_000L),
                        List.of("000000000000000a", "0000000000000009", "svc2", 1_596_566_305_500_000_000L, 100_000_000L),
                        List.of("000000000000000c", "000000000000000b", "svc2", 1_596_566_305_500_000_000L, 100_000_000L)),
                p.spans().stream().map(s -> List.<Object>of(s.spanId(), s.parentSpanId(), s.service(), s.startEpochNanos(),
                        s.durationNanos())).toList());
    }

    /**
     * Seconds outside 1677-09-21..2262-04-11 (past, before, an end past, a number past a double) skip the segment; a
     * time in 2262 before the last nanosecond reads (to the ms: a double holds no µs there).
     */
    @Test
    void xraySecondsOutsideALongOfNanosecondsAreSkippedAndCounted() {
        String doc = """
                [{"trace_id":"%1$s","id":"0000000000000001","name":"a","start_time":14782323361.271,"end_time":14789232374.449},
                 {"trace_id":"%1$s","id":"0000000000000002","name":"a","start_time":1478293361.271,"end_time":1E10},
                 {"trace_id":"%1$s","id":"0000000000000003","name":"a","start_time":-1E10,"end_time":1478293361.271},
                 {"trace_id":"%1$s","id":"0000000000000004","name":"a","start_time":1E400,"in_progress":true},
                 {"trace_id":"%1$s","id":"0000000000000005","name":"a","start_time":9223372036.85,"end_time":9223372036.854}]
                """.formatted(TRACE);
        ParsedTraces p = parse(doc);
        assertEquals(Map.of(OUT_OF_RANGE, 4), p.skippedByReason());
        assertEquals(List.of(List.of("0000000000000005", 9_223_372_036_850_000_000L, 4_000_000L)), times(p));
    }

    /** Zipkin's µs: a start or an end (start + duration) past either end of the range, or a number past a long. */
    @Test
    void zipkinMicrosecondsOutsideALongOfNanosecondsAreSkippedAndCounted() {
        String doc = """
                [{"traceId":"a","id":"1","timestamp":9223372036854776,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"2","timestamp":1,"duration":9223372036854775,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"3","timestamp":100000000000000000000,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"4","timestamp":-9223372036854776,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"5","timestamp":1.0E19,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"6","timestamp":"100000000000000000000","localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"7","timestamp":9223372036854775,"duration":0,"localEndpoint":{"serviceName":"s"}},
                 {"traceId":"a","id":"8","timestamp":1000,"duration":"25","localEndpoint":{"serviceName":"s"}}]""";
        ParsedTraces p = parse(doc);
        assertEquals(Map.of(OUT_OF_RANGE, 6), p.skippedByReason());
        assertEquals(List.of(List.of("0000000000000007", LAST_MICROSECOND * 1000, 0L), List.of("0000000000000008", 1_000_000L, 25_000L)),
                times(p));
    }

    /** Jaeger's µs, as Zipkin's. */
    @Test
    void jaegerMicrosecondsOutsideALongOfNanosecondsAreSkippedAndCounted() {
        String doc = """
                {"traceID":"a","processes":{"p":{"serviceName":"s"}},"spans":[
                 {"spanID":"1","processID":"p","startTime":9223372036854776,"duration":0},
                 {"spanID":"2","processID":"p","startTime":1,"duration":9223372036854775},
                 {"spanID":"3","processID":"p","startTime":100000000000000000000,"duration":1},
                 {"spanID":"4","processID":"p","startTime":-9223372036854776,"duration":1},
                 {"spanID":"5","processID":"p","startTime":1000,"duration":1E30},
                 {"spanID":"6","processID":"p","startTime":9223372036854775,"duration":0},
                 {"spanID":"7","processID":"p","startTime":1000,"duration":25}]}""";
        ParsedTraces p = parse(doc);
        assertEquals(Map.of(OUT_OF_RANGE, 5), p.skippedByReason());
        assertEquals(List.of(List.of("0000000000000006", LAST_MICROSECOND * 1000, 0L), List.of("0000000000000007", 1_000_000L, 25_000L)),
                times(p));
    }

    /**
     * OTLP's {@code fixed64} nanoseconds past {@code Long.MAX_VALUE} (as a string or a number) or negative skip the span,
     * in the streaming and the tree reader alike; the largest value a long holds reads as it is.
     */
    @Test
    void otlpNanosecondsPastALongOrNegativeAreSkippedAndCountedByBothReaders() {
        String doc = """
                {"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"s"}}]},
                 "scopeSpans":[{"spans":[
                  {"traceId":"%1$s","spanId":"0000000000000001","startTimeUnixNano":"18446744073709551615","endTimeUnixNano":"18446744073709551615"},
                  {"traceId":"%1$s","spanId":"0000000000000002","startTimeUnixNano":18446744073709551615,"endTimeUnixNano":1},
                  {"traceId":"%1$s","spanId":"0000000000000003","startTimeUnixNano":"-1","endTimeUnixNano":"5"},
                  {"traceId":"%1$s","spanId":"0000000000000004","startTimeUnixNano":"1000","endTimeUnixNano":"9223372036854775808"},
                  {"traceId":"%1$s","spanId":"0000000000000005","startTimeUnixNano":1000,"endTimeUnixNano":-5},
                  {"traceId":"%1$s","spanId":"0000000000000006","startTimeUnixNano":1.0E19,"endTimeUnixNano":1},
                  {"traceId":"%1$s","spanId":"0000000000000007","startTimeUnixNano":"9223372036854775807","endTimeUnixNano":9223372036854775807},
                  {"traceId":"%1$s","spanId":"0000000000000008","startTimeUnixNano":"1000","endTimeUnixNano":"3500"}]}]}]}
                """.formatted("0af7651916cd43dd8448eb211c80319c");
        byte[] bytes = doc.getBytes(StandardCharsets.UTF_8);
        for (boolean stream : new boolean[] {true, false}) {
            ParsedTraces p = TraceDocuments.parse("otlp", bytes, stream);
            assertEquals(Map.of(OUT_OF_RANGE, 6), p.skippedByReason(), "stream " + stream);
            assertEquals(List.of(List.of("0000000000000007", Long.MAX_VALUE, 0L), List.of("0000000000000008", 1000L, 2500L)),
                    times(p), "stream " + stream);
        }
        assertEquals(TraceDocuments.parse("otlp", bytes, true), TraceDocuments.parse("otlp", bytes, false));
    }

    /** Alibaba's ms: a row whose timestamp or response time is past the range is skipped once, as other bad rows are. */
    @Test
    void alibabaMillisecondsOutsideALongOfNanosecondsSkipTheRow() {
        String csv = """
                timestamp,traceid,service,rpc_id,rpctype,um,uminstanceid,interface,dm,dminstanceid,rt
                10000000000000,T_1,S_1,0,http,USER,,entry-if,MS_A,MS_A_POD_0,35.0
                1000,T_1,S_1,0.1,rpc,MS_A,MS_A_POD_0,if-b,MS_B,MS_B_POD_3,1E13
                -10000000000000,T_1,S_1,0.2,rpc,MS_A,MS_A_POD_0,if-c,MS_C,MS_C_POD_1,2.0
                1001,T_1,S_1,0.3,rpc,MS_A,MS_A_POD_0,if-d,MS_D,MS_D_POD_1,2.5
                """;
        ParsedTraces p = parse(csv);
        assertEquals(Map.of(OUT_OF_RANGE, 3), p.skippedByReason());
        assertEquals(List.of(List.of("0.3:um", 1_001_000_000L, 2_500_000L), List.of("0.3", 1_001_000_000L, 2_500_000L)), times(p));
    }

    private static ParsedTraces parse(String doc) {
        return TraceDocuments.parse("times", doc.getBytes(StandardCharsets.UTF_8));
    }

    private static List<List<Object>> times(ParsedTraces p) {
        return p.spans().stream().map(s -> List.<Object>of(s.spanId(), s.startEpochNanos(), s.durationNanos())).toList();
    }
}
