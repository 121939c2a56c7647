package dev.richter.links.trace;

/**
 * A pre-aggregated service-to-service call count, as the Zipkin and Jaeger dependencies APIs
 * return it ({@code {"parent":"a","child":"b","callCount":3}}). It yields a service-dimension edge only.
 *
 * @param parent calling service
 * @param child called service
 * @param callCount calls observed (≥ 0)
 */
public record DependencyLink(String parent, String child, long callCount) {}
