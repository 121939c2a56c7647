package dev.richter.data.traffic;

/**
 * The recorded answer to a request: kept for reference (replay sends the request only).
 *
 * @param status      HTTP status; 0 when the recording has none (an aborted request, a log without status)
 * @param contentType media type of the response body, empty when unknown
 * @param bodyBytes   size of the response body as recorded, bytes; -1 when unknown
 * @param decodeError empty, or why the recorded body could not be decoded (e.g. it declares
 *                    {@code Content-Encoding: gzip} but is not gzip)
 * @param rawBody     only with a decode error: the body exactly as recorded (the HAR's base64 or text, at most
 *                    {@link #MAX_RAW_BODY_CHARS} characters), so nothing is lost; empty otherwise
 */
public record RecordedResponse(int status, String contentType, long bodyBytes, String decodeError, String rawBody) {
    /** The longest raw body kept with a decode error, characters. */
    public static final int MAX_RAW_BODY_CHARS = 4096;

    /** A response known by its status only (access logs). */
    public static RecordedResponse status(int status, long bodyBytes) {
        return new RecordedResponse(status, "", bodyBytes, "", "");
    }
}
