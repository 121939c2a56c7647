package dev.richter.agent.kafka;

import dev.richter.agent.bootstrap.IsolationBridge;
import dev.richter.agent.bootstrap.IsolationGuard;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * The isolation at Kafka's producer ({@code KafkaProducer.send(record, callback)}, tested with kafka-clients 4.1.1):
 * a marked record goes to the shadow of its topic ({@code decideTopic}, {@code kind: topic}) and carries the marker in
 * its headers, so its consumer sees it marked; a record to a topic with no shadow is refused with Kafka's own
 * {@link KafkaException}, unsent. Unmarked records are not looked at. Injected by the agent as a helper next to
 * kafka-clients; no lambdas.
 *
 * <p>The marker is read in <em>every</em> {@code baggage} header of the record (W3C Baggage, "Multiple baggage headers
 * are allowed"; a service that copies the inbound headers and adds its own baggage has two, corpus bug 47 after
 * getsentry/sentry-java#5320), each read as a W3C Baggage list ({@link #carriesMarker}). A record that carries it keeps
 * its headers as they were; one that does not gets one more {@code baggage} header holding the marker and its proof
 * ({@code richter-proof}, a token of baggage-octets) alone, so no member of its own baggage is repeated.
 */
public final class KafkaExits {
    /** The marker's baggage member key: Richter's default. */
    static final String MARKER_KEY = "richter-loadtest";
    /** The marker's baggage member value. */
    static final String MARKER_VALUE = "1";
    /** The marker as a baggage header value. */
    static final String MARKER = MARKER_KEY + "=" + MARKER_VALUE;

    private KafkaExits() {}

    /**
     * @return {@code null}: send as it is; a {@code ProducerRecord}: send that instead (the shadow topic, the marker
     *     header; the partition dropped when the topic changed); a {@code KafkaException}: throw it, nothing is sent
     */
    public static Object beforeSend(ProducerRecord<?, ?> record) {
        IsolationGuard guard = IsolationBridge.guard();
        if (record == null || !guard.marked()) {
            return null;
        }
        ShadowDecision decision = guard.decideTopic(record.topic());
        guard.record(decision);
        if (decision.refused()) {
            return new KafkaException(decision.refusal());
        }
        boolean moved = decision.rewritten().isPresent();
        boolean carriesMarker = carriesMarker(record.headers().toArray());
        if (!moved && carriesMarker) {
            return null;
        }
        RecordHeaders headers = new RecordHeaders(record.headers().toArray());
        if (!carriesMarker) {
            String proof = guard.markerProof();
            headers.add("baggage", (proof == null ? MARKER : MARKER + ",richter-proof=" + proof)
                    .getBytes(StandardCharsets.UTF_8));
        }
        return new ProducerRecord<Object, Object>(decision.rewritten().orElse(record.topic()),
                moved ? null : record.partition(), record.timestamp(), record.key(), record.value(), headers);
    }

    /**
     * Whether any {@code baggage} header (name in any case, as HTTP compares them) holds the member
     * {@value #MARKER_KEY}{@code =}{@value #MARKER_VALUE}. Each value is a W3C Baggage list (§3.3): members separated
     * by {@code ,}, whitespace around keys and values ignored, properties after {@code ;} ignored, the value
     * percent-decoded as UTF-8. A header without a value holds nothing.
     */
    static boolean carriesMarker(Header[] headers) {
        for (Header h : headers) {
            if (h == null || !"baggage".equalsIgnoreCase(h.key()) || h.value() == null) {
                continue;
            }
            for (String member : new String(h.value(), StandardCharsets.UTF_8).split(",")) {
                int semicolon = member.indexOf(';');
                String pair = semicolon < 0 ? member : member.substring(0, semicolon);
                int eq = pair.indexOf('=');
                if (eq > 0 && pair.substring(0, eq).trim().equals(MARKER_KEY)
                        && percentDecoded(pair.substring(eq + 1).trim()).equals(MARKER_VALUE)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** {@code value} with each {@code %HH} decoded, the bytes read as UTF-8; a {@code %} not before two hex digits kept. */
    private static String percentDecoded(String value) {
        if (value.indexOf('%') < 0) {
            return value;
        }
        byte[] in = value.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length);
        for (int i = 0; i < in.length; i++) {
            int hi = i + 2 < in.length && in[i] == '%' ? Character.digit(in[i + 1], 16) : -1;
            int lo = hi >= 0 ? Character.digit(in[i + 2], 16) : -1;
            if (lo >= 0) {
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                out.write(in[i]);
            }
        }
        return new String(out.toByteArray(), StandardCharsets.UTF_8);
    }
}
