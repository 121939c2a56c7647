package dev.richter.common;

import java.util.Set;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * Tells a refused AWS call from one that failed: a call the function's role may not make is a deployment defect (a
 * missing permission in {@code template.yaml}), never a transient failure to paper over with a fallback value. Every
 * catch that turns a failed AWS call into a fallback rethrows a denial ({@link #rethrowIfDenied}), so it fails the
 * invocation: logged by Lambda and counted in Richter's own {@code AccessDenied} metric ({@link JsonStreamHandler}).
 */
public final class AccessDenied {
    /**
     * The error codes AWS answers a call its IAM policy refuses with: {@code AccessDeniedException} (DynamoDB, Step
     * Functions, EventBridge, Lambda, X-Ray, Scheduler, CloudWatch's JSON API), {@code AccessDenied} (S3, the query
     * protocol's services).
     */
    public static final Set<String> ERROR_CODES = Set.of("AccessDeniedException", "AccessDenied");

    private AccessDenied() {}

    /** True when {@code e}, or one of its causes, is an AWS service error with a code of {@link #ERROR_CODES}. */
    public static boolean isAccessDenied(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AwsServiceException s && s.awsErrorDetails() != null
                    && ERROR_CODES.contains(s.awsErrorDetails().errorCode())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rethrows {@code e} when it is a denial, for the catch of a fallback.
     *
     * @throws RuntimeException {@code e} itself, when {@link #isAccessDenied}
     */
    public static void rethrowIfDenied(RuntimeException e) {
        if (isAccessDenied(e)) {
            throw e;
        }
    }
}
