package dev.richter.agent.otel;

import dev.richter.agent.localcache.LocalCacheExits;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

/**
 * Inlined into a data method that returns a value of Caffeine's {@code BoundedLocalCache} or {@code
 * UnboundedLocalCache}, or of Spring's {@code ConcurrentMapCache}: when the context is marked, the method is skipped and returns what the same call returned on the cache's
 * shadow ({@code LocalCacheExits.onShadow}); unmarked, the method runs as it is. The arguments are boxed into an array
 * only on the marked path. A loader's exception, or the refusal, is thrown from the method. Names only the helper and
 * JDK types.
 */
@SuppressWarnings("unused")
public final class LocalCacheCallAdvice {
    private LocalCacheCallAdvice() {}

    /** @return {@code null}: run the method; one element: skip it and return that */
    @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
    public static Object[] enter(@Advice.This Object cache, @Advice.Origin("#m") String method,
                                 @Advice.Origin("#d") String descriptor, @Advice.AllArguments Object[] arguments) {
        if (!LocalCacheExits.marked()) {
            return null;
        }
        return LocalCacheExits.onShadow(cache, method, descriptor, arguments);
    }

    @Advice.OnMethodExit
    public static void exit(@Advice.Enter Object[] onShadow,
                            @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
        if (onShadow != null) {
            returned = onShadow[0];
        }
    }
}
