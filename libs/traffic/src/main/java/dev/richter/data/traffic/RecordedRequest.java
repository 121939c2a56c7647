package dev.richter.data.traffic;

import java.util.List;

/**
 * One replayable request read from a recording (a HAR entry, an access-log line), before scrubbing and grouping.
 *
 * @param host        the host the request went to, lower case, with a port only when not the scheme's default;
 *                    empty when the recording does not say (a log without {@code $host})
 * @param method      upper-case HTTP method, e.g. {@code GET}
 * @param target      path and query as sent, e.g. {@code /users/42?page=2} (percent-encoding kept as recorded)
 * @param headers     request headers in recorded order (access logs carry only the ones their format logs)
 * @param body        request body bytes, empty when none; the recorded bytes when they could not be decoded
 * @param contentType the body's media type, or empty when unknown
 * @param notes       what was odd about the recording and kept as recorded, e.g.
 *                    {@code "request body: encoding base64 but not base64 (kept as text)"}
 * @param response    what the recording says the server answered
 * @param source      where the request was read, e.g. {@code chrome.har:$.log.entries[2]} or {@code access.log:17}
 */
public record RecordedRequest(String host, String method, String target, List<Header> headers, byte[] body, String contentType,
                              List<String> notes, RecordedResponse response, String source) {
    public RecordedRequest {
        headers = List.copyOf(headers);
        notes = List.copyOf(notes);
        body = body == null ? new byte[0] : body;
        contentType = contentType == null ? "" : contentType;
        host = host == null ? "" : host;
    }
}
