package dev.richter.checks.safety;

import dev.richter.common.model.Marker;
import dev.richter.common.model.MarkerAttributes;
import dev.richter.links.trace.Span;

/**
 * Whether a span carries the load-test {@link Marker}, in any of the forms tracers record it.
 *
 * <p>A span is marked when one of its attributes says {@code key = value} (values trimmed):
 * <ol>
 *   <li>{@code <key>} — the OpenTelemetry contrib baggage span processor copies each baggage
 *       member to an attribute of the same name (the shop: {@code richter-loadtest=1});</li>
 *   <li>{@code baggage.<key>} — Brave/Micrometer tag a baggage field with this prefix (corpus bug
 *       02: {@code baggage.lt.mark=1});</li>
 *   <li>an attribute named like the marker header ({@code baggage}, case-insensitive) whose value
 *       is a W3C baggage list ({@code k=v,k2=v2;prop}) with the member; members are trimmed,
 *       properties after {@code ;} ignored, values percent-decoded (W3C Baggage §3.3.1); for a
 *       non-baggage header the attribute value itself must equal the marker value.</li>
 * </ol>
 * The rule itself is {@link MarkerAttributes}, shared with the report, which reads attribute maps only.
 */
public final class MarkerOnSpan {
    private MarkerOnSpan() {}

    /** True when {@code span} carries {@code marker}: {@link MarkerAttributes#carries} on its attributes. */
    public static boolean carries(Span span, Marker marker) {
        return MarkerAttributes.carries(span.attributes(), marker);
    }
}
