package dev.richter.agent.localcache;

import java.lang.ref.Reference;
import java.lang.ref.ReferenceQueue;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.logging.Logger;

/**
 * The shadow of each in-process cache, made at the first marked call on the cache and kept as long as the cache is
 * (weakly, by identity); one registry per class loader that has the cache library (the agent injects this class next
 * to it). No lambdas: injected into the application's loader.
 * <ul>
 *   <li>Caffeine: a second {@code LocalCache} of the same kind (bounded or unbounded, sync or async), built from a copy
 *       of the production cache's own builder (same maximum size or weight and weigher, expiry and refresh, key and
 *       value strength, executor, scheduler and ticker; the same loader) without its removal and eviction listeners,
 *       its 2.x {@code CacheWriter} and its statistics counter, so that nothing of the application's sees a shadow
 *       entry leave and production's statistics count no marked hit or miss. Internals it relies on, the same in 2.9
 *       and 3.x: {@code BoundedLocalCache(Caffeine, loader, boolean async)}, {@code UnboundedLocalCache(Caffeine,
 *       boolean async)}, the static {@code LocalCacheFactory.newBoundedLocalCache(Caffeine, loader, boolean)}, the
 *       builder's no-argument constructor and its fields {@code removalListener}, {@code evictionListener} (3.x),
 *       {@code writer} (2.x), {@code statsCounterSupplier}.</li>
 *   <li>Spring's {@code ConcurrentMapCache}: another {@code ConcurrentMapCache} of the same name, null-value policy
 *       and serialization over an empty store of its own (its protected constructor, its fields {@code name} and
 *       {@code serialization}).</li>
 * </ul>
 * When those internals differ, no shadow can be made and {@link LocalCacheExits} refuses the marked call.
 */
final class LocalCacheShadows {
    static final String BOUNDED = "com.github.benmanes.caffeine.cache.BoundedLocalCache";
    static final String UNBOUNDED = "com.github.benmanes.caffeine.cache.UnboundedLocalCache";
    private static final String FACTORY = "com.github.benmanes.caffeine.cache.LocalCacheFactory";
    static final String SPRING_MAP_CACHE = "org.springframework.cache.concurrent.ConcurrentMapCache";
    /** The builder's fields a shadow is built without (absent ones are skipped: 2.x has no evictionListener). */
    private static final String[] DROPPED = {"removalListener", "evictionListener", "writer", "statsCounterSupplier"};
    private static final Logger LOG = Logger.getLogger(LocalCacheShadows.class.getName());

    private static final ConcurrentHashMap<IdentityKey, ShadowEntry> CACHES =
            new ConcurrentHashMap<IdentityKey, ShadowEntry>();
    private static final ReferenceQueue<Object> COLLECTED = new ReferenceQueue<Object>();
    private static final ConcurrentHashMap<String, Method> METHODS = new ConcurrentHashMap<String, Method>();

    private LocalCacheShadows() {}

    /** Records how {@code cache} was built (its constructor's arguments), for its shadow. */
    static void constructed(Object cache, Object[] arguments) {
        expunge();
        CACHES.put(new IdentityKey(cache, COLLECTED), new ShadowEntry(arguments.clone(), false));
    }

    /**
     * The shadow of {@code cache}, made now if it has none yet.
     *
     * @return {@code null} when {@code cache} is itself a shadow
     * @throws ReflectiveOperationException when Caffeine's internals are not as above
     * @throws IllegalStateException        for a cache built before the extension's advice was in it
     */
    static Object shadowOf(Object cache) throws ReflectiveOperationException {
        ShadowEntry entry = CACHES.get(new IdentityKey(cache, null));
        if (entry == null && isA(cache.getClass(), SPRING_MAP_CACHE)) {
            // a ConcurrentMapCache's shadow is built from what it answers: nothing to record at its constructor
            expunge();
            ShadowEntry fresh = new ShadowEntry(new Object[0], false);
            ShadowEntry raced = CACHES.putIfAbsent(new IdentityKey(cache, COLLECTED), fresh);
            entry = raced == null ? fresh : raced;
        }
        if (entry == null) {
            throw new IllegalStateException("the cache was built where the extension could not see how");
        }
        if (entry.isShadow) {
            return null;
        }
        Object shadow = entry.shadow;
        if (shadow != null) {
            return shadow;
        }
        synchronized (entry) {
            if (entry.shadow == null) {
                Object made = make(cache, entry.constructorArguments);
                CACHES.put(new IdentityKey(made, COLLECTED), new ShadowEntry(null, true));
                entry.shadow = made;
                LOG.info("Richter isolation: marked calls on a " + cache.getClass().getName() + " go to its shadow");
            }
            return entry.shadow;
        }
    }

    /** Whether {@code cache} is known here (built with the extension's advice in place). For tests. */
    static boolean known(Object cache) {
        return CACHES.containsKey(new IdentityKey(cache, null));
    }

    private static Object make(Object cache, Object[] arguments) throws ReflectiveOperationException {
        Class<?> type = cache.getClass();
        if (isA(type, SPRING_MAP_CACHE)) {
            return springShadow(cache, type);
        }
        Object builder = withoutListeners(arguments[0]);
        boolean async = (Boolean) arguments[arguments.length - 1];
        if (isA(type, BOUNDED)) {
            Class<?> factory = Class.forName(FACTORY, false, type.getClassLoader());
            for (Method m : factory.getDeclaredMethods()) {
                if (m.getName().equals("newBoundedLocalCache") && Modifier.isStatic(m.getModifiers())
                        && m.getParameterTypes().length == 3) {
                    m.setAccessible(true);
                    return unwrapped(m, builder, arguments[1], async);
                }
            }
            throw new NoSuchMethodException(FACTORY + ".newBoundedLocalCache(Caffeine, loader, boolean)");
        }
        if (isA(type, UNBOUNDED)) {
            Constructor<?> c = type.getDeclaredConstructor(builder.getClass(), boolean.class);
            c.setAccessible(true);
            try {
                return c.newInstance(builder, async);
            } catch (InvocationTargetException e) {
                throw new ReflectiveOperationException(String.valueOf(e.getCause()), e.getCause());
            }
        }
        throw new ClassNotFoundException("not a Caffeine LocalCache: " + type.getName());
    }

    /**
     * A Spring {@code ConcurrentMapCache} of the same name, null-value policy and store-by-value serialization, over
     * a store of its own (production's is an unbounded {@code ConcurrentHashMap}, so is the shadow's).
     */
    private static Object springShadow(Object cache, Class<?> type) throws ReflectiveOperationException {
        Class<?> spring = type;
        while (!spring.getName().equals(SPRING_MAP_CACHE)) {
            spring = spring.getSuperclass();
        }
        Field name = spring.getDeclaredField("name");
        Field serialization = spring.getDeclaredField("serialization");
        name.setAccessible(true);
        serialization.setAccessible(true);
        Object allowNullValues = spring.getMethod("isAllowNullValues").invoke(cache);
        Constructor<?> c = spring.getDeclaredConstructor(String.class, ConcurrentMap.class, boolean.class,
                serialization.getType());
        c.setAccessible(true);
        try {
            return c.newInstance(name.get(cache), new ConcurrentHashMap<Object, Object>(), allowNullValues,
                    serialization.get(cache));
        } catch (InvocationTargetException e) {
            throw new ReflectiveOperationException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    private static Object unwrapped(Method factory, Object... arguments) throws ReflectiveOperationException {
        try {
            return factory.invoke(null, arguments);
        } catch (InvocationTargetException e) {
            throw new ReflectiveOperationException(String.valueOf(e.getCause()), e.getCause());
        }
    }

    /** A copy of a {@code Caffeine} builder with every field but the {@link #DROPPED} ones. */
    static Object withoutListeners(Object builder) throws ReflectiveOperationException {
        Class<?> type = builder.getClass();
        Constructor<?> c = type.getDeclaredConstructor();
        c.setAccessible(true);
        Object copy = c.newInstance();
        for (Field f : type.getDeclaredFields()) {
            if (!Modifier.isStatic(f.getModifiers())) {
                f.setAccessible(true);
                f.set(copy, f.get(builder));
            }
        }
        for (String name : DROPPED) {
            try {
                Field f = type.getDeclaredField(name);
                f.setAccessible(true);
                f.set(copy, null);
            } catch (NoSuchFieldException absent) {
                // not in this Caffeine version
            }
        }
        return copy;
    }

    private static boolean isA(Class<?> type, String name) {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            if (c.getName().equals(name)) {
                return true;
            }
        }
        return false;
    }

    /**
     * The method {@code name} with the JVM descriptor {@code descriptor} (e.g. {@code
     * (Ljava/lang/Object;Ljava/lang/Object;)Ljava/lang/Object;}) declared by {@code type} or a superclass, accessible.
     */
    static Method method(Class<?> type, String name, String descriptor) throws NoSuchMethodException {
        String id = type.getName() + '#' + name + descriptor;
        Method found = METHODS.get(id);
        if (found != null) {
            return found;
        }
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptor(m).equals(descriptor)) {
                    m.setAccessible(true);
                    METHODS.put(id, m);
                    return m;
                }
            }
        }
        throw new NoSuchMethodException(type.getName() + "." + name + descriptor);
    }

    static String descriptor(Method m) {
        StringBuilder out = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            out.append(descriptor(p));
        }
        return out.append(')').append(descriptor(m.getReturnType())).toString();
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return "[" + descriptor(c.getComponentType());
        }
        if (!c.isPrimitive()) {
            return "L" + c.getName().replace('.', '/') + ";";
        }
        if (c == void.class) {
            return "V";
        }
        if (c == boolean.class) {
            return "Z";
        }
        if (c == long.class) {
            return "J";
        }
        return String.valueOf(Character.toUpperCase(c.getName().charAt(0)));
    }

    private static void expunge() {
        for (Reference<?> gone = COLLECTED.poll(); gone != null; gone = COLLECTED.poll()) {
            CACHES.remove(gone);
        }
    }
}
