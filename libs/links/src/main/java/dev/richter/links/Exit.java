package dev.richter.links;


/**
 * A call that leaves the services in test scope (DESIGN §2 "exit").
 *
 * @param fromService calling service (in scope)
 * @param fromNode calling interface node, or the service when only service edges are known
 * @param toService called service (out of scope)
 * @param toNode called interface node, or the service when only service edges are known
 * @param callCount calls observed
 * @param lastSeenEpochMs last ingest that observed it
 * @param mockRequired from the annotation on {@code toNode} or {@code toService}; false if none
 * @param coreDependency from the same annotation; false if none
 * @param annotatedBy who set the annotation, {@code ""} if none
 */
public record Exit(String fromService, String fromNode, String toService, String toNode, long callCount,
                   long lastSeenEpochMs, boolean mockRequired, boolean coreDependency, String annotatedBy) {}
