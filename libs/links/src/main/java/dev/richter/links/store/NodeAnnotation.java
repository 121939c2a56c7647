package dev.richter.links.store;

/**
 * A user's judgement on a node or exit, kept apart from derived rows so it survives re-ingests
 * and rebuilds of the closure.
 *
 * @param subject the annotated node id (service or interface node, e.g. {@code payment-gw POST /charge})
 * @param coreDependency the dependency is on the core path of the entry (must stay healthy)
 * @param mockRequired marked traffic must be answered by a mock at this exit
 * @param note free text
 * @param annotatedBy who set it (the caller's identity)
 * @param annotatedAtEpochMs when it was set
 */
public record NodeAnnotation(String subject, boolean coreDependency, boolean mockRequired, String note,
                             String annotatedBy, long annotatedAtEpochMs) {}
