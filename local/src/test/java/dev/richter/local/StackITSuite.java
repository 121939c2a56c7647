package dev.richter.local;

import org.junit.platform.suite.api.ExcludeClassNamePatterns;
import org.junit.platform.suite.api.IncludeClassNamePatterns;
import org.junit.platform.suite.api.SelectPackages;
import org.junit.platform.suite.api.Suite;

/**
 * Every IT of this module that does not start the demo shop ({@link ShopITSuite} has those) or read the
 * whole run's AWS calls ({@link LeastPrivilegeIT}, run after both): each starts the local stack of its fork, with a
 * fake target or none. A new {@code *IT} class is in this suite unless it is named here.
 */
@Suite
@SelectPackages("dev.richter.local")
@IncludeClassNamePatterns(".*IT$")
@ExcludeClassNamePatterns({".*\\.SafetyGateIT$", ".*\\.TeamEvidenceIT$", ".*\\.ConsoleAbortIT$", ".*\\.MainJobIT$", ".*\\.LeastPrivilegeIT$"})
class StackITSuite {}
