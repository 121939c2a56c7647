package dev.richter.links.trace;

import java.util.Map;

/**
 * Picks the called peer of a CLIENT/PRODUCER span from OpenTelemetry semantic-convention
 * attributes, first present wins: {@code peer.service}, {@code server.address},
 * {@code net.peer.name}, {@code db.system}, {@code messaging.system}, {@code rpc.service}.
 */
final class PeerService {
    private static final String[] KEYS = {
        "peer.service", "server.address", "net.peer.name", "db.system", "messaging.system", "rpc.service"
    };

    private PeerService() {}

    static String of(Map<String, String> attributes) {
        if (attributes.isEmpty()) {
            return "";
        }
        for (String key : KEYS) {
            String v = attributes.get(key);
            if (v != null && !v.isBlank()) {
                return v;
            }
        }
        return "";
    }
}
