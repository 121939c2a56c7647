package dev.richter.common.model;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class WindowKeyTest {
    @Test
    void keysRoundTripAndSortWithinTheirStep() {
        String sk = WindowKey.sortKey("formal", 2, 1_796_000_000L, 7);
        assertEquals("window#formal#002#1796000000#0007#0000", sk);
        assertTrue(sk.startsWith(WindowKey.stepPrefix("formal", 2)));
        assertEquals(1_796_000_000L, WindowKey.epochSecond(sk));
        assertEquals(7, WindowKey.workerIndex(sk));
        assertTrue(WindowKey.sortKey("formal", 2, 1_796_000_001L, 0).compareTo(sk) > 0, "later seconds sort later");
    }

    @Test
    void twoLegsWindowsOfTheSameSecondAndWorkerAreDistinct() {
        String first = WindowKey.sortKey("formal", 2, 1_796_000_000L, 7, 0);
        String next = WindowKey.sortKey("formal", 2, 1_796_000_000L, 7, 1);
        assertTrue(!first.equals(next), first);
        assertEquals(7, WindowKey.workerIndex(next));
        assertEquals(new WorkerKey("formal", 2, 1, 7), WindowKey.worker(next));
        assertEquals(1_796_000_000L, WindowKey.epochSecond(next));
    }
}
