package dev.richter.loaddriver;

import java.io.IOException;

/**
 * A request whose redirect was not followed ({@link Redirects}): it went out of the target under test, past the hop
 * limit, or named no usable {@code Location}. The request fails; the load driver counts it by {@link #counterKey()}
 * among the HTTP errors, since its final answer was that redirect.
 */
public final class RedirectException extends IOException {
    private final int status;

    /**
     * @param status the redirect's status, e.g. 302
     * @param reason why it was not followed, e.g. {@code redirect out of scope: https://login.example.test}
     */
    RedirectException(int status, String reason) {
        super(reason);
        this.status = status;
    }

    /** No stack trace: one is thrown per refused request, which may be every request of a step. */
    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }

    /** The redirect's HTTP status. */
    public int status() {
        return status;
    }

    /** {@code <status> <reason>}, e.g. {@code 302 redirect out of scope: https://login.example.test}. */
    public String counterKey() {
        return status + " " + getMessage();
    }
}
