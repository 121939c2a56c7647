package dev.richter.agent.otel;

import dev.richter.agent.localcache.LocalCacheExits;
import net.bytebuddy.asm.Advice;

/**
 * {@link LocalCacheCallAdvice} for the data methods that return nothing ({@code clear}, {@code putAll}, {@code
 * replaceAll}, {@code forEach}): marked, the method is skipped once the same call ran on the cache's shadow.
 */
@SuppressWarnings("unused")
public final class LocalCacheVoidCallAdvice {
    private LocalCacheVoidCallAdvice() {}

    /** @return {@code null}: run the method; non-null: skip it (it ran on the shadow) */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    public static Object[] enter(@Advice.This Object cache, @Advice.Origin("#m") String method,
                                 @Advice.Origin("#d") String descriptor, @Advice.AllArguments Object[] arguments) {
        if (!LocalCacheExits.marked()) {
            return null;
        }
        return LocalCacheExits.onShadow(cache, method, descriptor, arguments);
    }
}
