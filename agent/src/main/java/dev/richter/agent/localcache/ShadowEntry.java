package dev.richter.agent.localcache;

/**
 * What {@link LocalCacheShadows} knows of one Caffeine {@code LocalCache}: how it was built (to build its shadow alike)
 * and its shadow once marked work has used it; or that it is itself a shadow.
 */
final class ShadowEntry {
    /** The arguments its constructor took: the builder, (bounded caches) the loader, and whether it is async. */
    final Object[] constructorArguments;
    /** Whether this cache is a shadow: every call on it runs as it is. */
    final boolean isShadow;
    /** The shadow marked calls go to, made at the first marked call; {@code null} until then. */
    volatile Object shadow;

    ShadowEntry(Object[] constructorArguments, boolean isShadow) {
        this.constructorArguments = constructorArguments;
        this.isShadow = isShadow;
    }
}
