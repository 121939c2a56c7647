package dev.richter.agent.localcache;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;

/**
 * A weak reference to a cache that is equal to another only when both refer to the same object (identity, never the
 * cache's own {@code equals}: a Caffeine {@code LocalCache} is a {@code Map} whose equality and hash follow its
 * content). A key whose cache was collected equals only itself.
 */
final class IdentityKey extends WeakReference<Object> {
    private final int hash;

    /** @param queue where the key is enqueued once its cache is collected; {@code null} for a look-up key */
    IdentityKey(Object referent, ReferenceQueue<Object> queue) {
        super(referent, queue);
        hash = System.identityHashCode(referent);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        if (o == this) {
            return true;
        }
        if (!(o instanceof IdentityKey)) {
            return false;
        }
        Object mine = get();
        return mine != null && mine == ((IdentityKey) o).get();
    }
}
