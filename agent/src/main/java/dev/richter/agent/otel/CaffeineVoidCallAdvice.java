package dev.richter.agent.otel;

import dev.richter.agent.caffeine.CaffeineExits;
import net.bytebuddy.asm.Advice;

/**
 * {@link CaffeineCallAdvice} for the data methods that return nothing ({@code clear}, {@code putAll}, {@code
 * replaceAll}, {@code forEach}): marked, the method is skipped once the same call ran on the cache's shadow.
 */
@SuppressWarnings("unused")
public final class CaffeineVoidCallAdvice {
    private CaffeineVoidCallAdvice() {}

    /** @return {@code null}: run the method; non-null: skip it (it ran on the shadow) */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    public static Object[] enter(@Advice.This Object cache, @Advice.Origin("#m") String method,
                                 @Advice.Origin("#d") String descriptor, @Advice.AllArguments Object[] arguments) {
        if (!CaffeineExits.marked()) {
            return null;
        }
        return CaffeineExits.onShadow(cache, method, descriptor, arguments);
    }
}
