package dev.richter.common;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SnapStartHooksTest {
    @Test
    void aRegisteredHookRunsItsActionOnEachRestoreAndIsKept() {
        AtomicInteger renewed = new AtomicInteger();
        SnapStartHooks.Hook hook = SnapStartHooks.afterRestore("test connections", renewed::incrementAndGet);

        assertEquals(0, renewed.get(), "registering does not run the action");
        assertTrue(SnapStartHooks.registered().contains(hook));
        hook.afterRestore(null);
        hook.afterRestore(null);
        assertEquals(2, renewed.get());
    }
}
