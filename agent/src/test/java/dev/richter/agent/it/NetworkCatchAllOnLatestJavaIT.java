package dev.richter.agent.it;

/** {@link NetworkCatchAllIT}, every case, with the child on the newest Java ({@link ChildJvm#latestJava()}, Java 25). */
class NetworkCatchAllOnLatestJavaIT extends NetworkCatchAllIT {
    @Override
    String java() {
        return ChildJvm.latestJava();
    }
}
