package dev.richter.agent.it;

/**
 * {@link ExtensionIsolationIT}, every case, with the child on the newest Java ({@link ChildJvm#latestJava()}, Java 25)
 * instead of the services' Java 17: the extension's Java 8 class files load and enforce on both.
 */
class ExtensionIsolationOnLatestJavaIT extends ExtensionIsolationIT {
    @Override
    String java() {
        return ChildJvm.latestJava();
    }
}
