package dev.richter.agent.otel;

import dev.richter.agent.localcache.LocalCacheExits;
import net.bytebuddy.asm.Advice;

/**
 * Inlined at the end of the constructors of Caffeine's {@code BoundedLocalCache} and {@code UnboundedLocalCache}:
 * remembers the builder (and loader, and async flag) the cache was built with, from which its shadow is built at the
 * first marked call on it. Never throws into the application.
 */
@SuppressWarnings("unused")
public final class CaffeineBuiltAdvice {
    private CaffeineBuiltAdvice() {}

    @Advice.OnMethodExit(suppress = Throwable.class)
    public static void exit(@Advice.This Object cache, @Advice.AllArguments Object[] arguments) {
        LocalCacheExits.constructed(cache, arguments);
    }
}
