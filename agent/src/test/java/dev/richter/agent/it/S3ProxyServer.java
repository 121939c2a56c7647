package dev.richter.agent.it;

import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gaul.s3proxy.AuthenticationType;
import org.gaul.s3proxy.S3Proxy;
import org.jclouds.ContextBuilder;
import org.jclouds.blobstore.BlobStore;
import org.jclouds.blobstore.BlobStoreContext;
import org.jclouds.blobstore.domain.StorageMetadata;
import org.jclouds.blobstore.domain.StorageType;
import org.jclouds.blobstore.options.ListContainerOptions;

/**
 * An S3 server in this JVM: S3Proxy (org.gaul:s3proxy 2.6.0, Jetty on 127.0.0.1 and an ephemeral port) over jclouds'
 * {@code transient} blob store (in memory), with the buckets it is given; requests are not authenticated (any
 * signature passes) and headers it does not know (the SDK's checksums) are ignored. Chosen over S3Mock, a Spring Boot
 * application, because it starts from a builder over a blob store with no application context and nothing on this
 * JVM's class path to agree with. {@link #count} reads the blob store itself.
 */
final class S3ProxyServer implements AutoCloseable {
    private final BlobStoreContext context;
    private final BlobStore store;
    private final S3Proxy proxy;

    S3ProxyServer(List<String> buckets) throws Exception {
        context = ContextBuilder.newBuilder("transient").credentials("local", "local").build(BlobStoreContext.class);
        store = context.getBlobStore();
        buckets.forEach(b -> store.createContainerInLocation(null, b));
        proxy = S3Proxy.builder().blobStore(store).endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.NONE, null, null).ignoreUnknownHeaders(true).build();
        proxy.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!"STARTED".equals(proxy.getState())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("S3Proxy did not start: " + proxy.getState());
            }
            Thread.sleep(50);
        }
    }

    String endpoint() {
        return "http://127.0.0.1:" + proxy.getPort();
    }

    /** The objects of {@code bucket} whose keys start with {@code prefix} ({@code ""}: all). */
    long count(String bucket, String prefix) {
        ListContainerOptions options = ListContainerOptions.Builder.recursive();
        if (!prefix.isEmpty()) {
            options = options.prefix(prefix);
        }
        long n = 0;
        for (StorageMetadata m : store.list(bucket, options)) {
            n += m.getType() == StorageType.BLOB ? 1 : 0;
        }
        return n;
    }

    /** Puts an object directly into the store (a production object for a marked read or delete to meet). */
    void put(String bucket, String key, String content) {
        store.putBlob(bucket, store.blobBuilder(key).payload(content).build());
    }

    @Override
    public void close() throws Exception {
        proxy.stop();
        context.close();
    }
}
