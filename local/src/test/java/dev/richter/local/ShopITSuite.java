package dev.richter.local;

import org.junit.platform.suite.api.SelectClasses;
import org.junit.platform.suite.api.Suite;

/**
 * The ITs that start the demo shop (four Spring Boot JVMs with the OpenTelemetry agent, H2, Redis), one after another
 * in one failsafe fork, while {@link StackITSuite} runs in the other (local/pom.xml). One shop at a time keeps
 * its answer times those of a machine running one system under test: order's 1 s inventory timeout and breaker are
 * part of what these ITs check.
 */
@Suite
@SelectClasses({SafetyGateIT.class, TeamEvidenceIT.class, ConsoleAbortIT.class, MainJobIT.class})
class ShopITSuite {}
