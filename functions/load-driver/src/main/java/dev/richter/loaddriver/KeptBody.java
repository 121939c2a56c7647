package dev.richter.loaddriver;

import io.netty.buffer.ByteBuf;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Map;

/**
 * The body of one response being read for a request that asked for it ({@link HttpTransport.Capture#body}): counts
 * every byte and keeps the first {@link HttpTransport#MAX_KEPT_BODY_BYTES}. Grows as bytes arrive (from 1 KiB), so a
 * small answer costs a small array. Confined to the thread reading the response.
 */
final class KeptBody {
    private byte[] bytes = new byte[1024];
    private int kept;
    private long total;

    /** Appends {@code data}'s readable bytes (not consumed). */
    void add(ByteBuf data) {
        int n = data.readableBytes();
        int room = room(n);
        if (room > 0) {
            data.getBytes(data.readerIndex(), bytes, kept, room);
            kept += room;
        }
        total += n;
    }

    /** Appends {@code data}'s remaining bytes (not consumed). */
    void add(ByteBuffer data) {
        int n = data.remaining();
        int room = room(n);
        if (room > 0) {
            data.duplicate().get(bytes, kept, room);
            kept += room;
        }
        total += n;
    }

    /** How many of {@code n} new bytes are kept; grows the array for them. */
    private int room(int n) {
        int room = Math.min(n, HttpTransport.MAX_KEPT_BODY_BYTES - kept);
        if (room > 0 && kept + room > bytes.length) {
            bytes = Arrays.copyOf(bytes, Math.min(HttpTransport.MAX_KEPT_BODY_BYTES, Math.max(kept + room, bytes.length * 2)));
        }
        return room;
    }

    /** What was kept, with {@code headers}. */
    HttpTransport.Kept kept(Map<String, String> headers) {
        return new HttpTransport.Kept(headers, Arrays.copyOf(bytes, kept), total);
    }
}
