package dev.richter.agent.isolation;

import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * A mock document's exit id read as an outgoing HTTP call it answers. The forms, those of {@code
 * MockConfigDocument.StatedMock#exit} with the service named by its host:
 * <ul>
 *   <li>{@code host[:port]/path}, e.g. {@code api.stripe.com/v1/charges}: every method on that path;</li>
 *   <li>{@code host[:port] METHOD /path} (an interface node), e.g. {@code payment.internal:8080 POST /charge}: that
 *       method only;</li>
 *   <li>{@code host[:port]} (a service), e.g. {@code api.stripe.com}: every call to the host.</li>
 * </ul>
 * Hosts compare case-insensitively, methods case-insensitively, paths exactly (the query is never part of it). An
 * exit without a port answers every port of its host. A value: equal to another with the same components.
 *
 * @param exit   the id as configured (reported as {@code richter.mock.exit})
 * @param target host and port ({@link HostPort#ANY_PORT} when the id names none)
 * @param method upper-case method, {@code ""} for any
 * @param path   path, {@code ""} for any
 */
public final class HttpExit {
    private final String exit;
    private final HostPort target;
    private final String method;
    private final String path;

    public HttpExit(String exit, HostPort target, String method, String path) {
        this.exit = exit;
        this.target = target;
        this.method = method;
        this.path = path;
    }

    public String exit() {
        return exit;
    }

    public HostPort target() {
        return target;
    }

    public String method() {
        return method;
    }

    public String path() {
        return path;
    }

    /**
     * @param exitId an exit id from the mock document
     * @return empty when the id has none of the forms above (e.g. {@code payment POST charge}): it answers no HTTP
     *     call here, though the in-process SDK may still use it
     */
    public static Optional<HttpExit> parse(String exitId) {
        String id = exitId.trim();
        String[] words = id.split("\\s+");
        try {
            if (words.length == 3 && words[2].startsWith("/") && words[1].chars().allMatch(Character::isLetter)) {
                return Optional.of(new HttpExit(id, HostPort.parse(words[0]), words[1].toUpperCase(Locale.ROOT), words[2]));
            }
            if (words.length != 1 || id.startsWith("/")) {
                return Optional.empty();
            }
            int slash = id.startsWith("[") ? id.indexOf('/', Math.max(id.indexOf(']'), 0)) : id.indexOf('/');
            return slash < 0
                    ? Optional.of(new HttpExit(id, HostPort.parse(id), "", ""))
                    : Optional.of(new HttpExit(id, HostPort.parse(id.substring(0, slash)), "", id.substring(slash)));
        } catch (IllegalArgumentException notHostPort) {
            return Optional.empty();
        }
    }

    /** Whether this exit answers {@code method host:port path}. */
    public boolean answers(String callMethod, String callHost, int callPort, String callPath) {
        return target.covers(callHost, callPort)
                && (method.isEmpty() || method.equalsIgnoreCase(callMethod))
                && (path.isEmpty() || path.equals(callPath));
    }

    /**
     * How narrowly the id names a call, to pick one when several answer it: a method counts 4, a path 2, a port 1
     * (so {@code h POST /p} beats {@code h:443/p}, which beats {@code h/p}, which beats {@code h:443}).
     */
    public int specificity() {
        return (method.isEmpty() ? 0 : 4) + (path.isEmpty() ? 0 : 2) + (target.port() == HostPort.ANY_PORT ? 0 : 1);
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof HttpExit)) {
            return false;
        }
        HttpExit e = (HttpExit) o;
        return Objects.equals(exit, e.exit) && Objects.equals(target, e.target) && Objects.equals(method, e.method)
                && Objects.equals(path, e.path);
    }

    @Override
    public int hashCode() {
        return Objects.hash(exit, target, method, path);
    }

    @Override
    public String toString() {
        return "HttpExit[exit=" + exit + ", target=" + target + ", method=" + method + ", path=" + path + "]";
    }
}
