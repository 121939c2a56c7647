package dev.richter.links.datastore;

import dev.richter.links.trace.ParsedTraces;
import dev.richter.links.trace.TraceDocuments;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/**
 * Real agent output for the datastore readers and the shadow checks (test-jar: the checks' tests read them too):
 * {@code datastore/shop-agent-extension.otlp.json} and {@code datastore/inventory-agent-only.otlp.json}, the two
 * documents {@code agent/src/test/java/dev/richter/agent/it/ShadowSpansFixtureIT} writes to {@code
 * agent/target/shadow-spans/} ({@code mvn -B verify -pl agent -Dit.test=ShadowSpansFixtureIT -Dtest=none
 * -Dsurefire.failIfNoSpecifiedTests=false}): the OpenTelemetry Java agent 2.22.0 with {@code logging-otlp} and the
 * contrib baggage span processor, in front of H2 2.3 over TCP, redis-server 7 and a KRaft broker. {@code shop} runs
 * Richter's extension (old db semconv; enforce, then report mode); {@code inventory} runs the new db semconv with the
 * extension's storage modules disabled, so its marked calls reach production.
 */
public final class ShadowSpans {
    /** Service {@code shop}: routed, refused and would-refuse calls. */
    public static final String SHOP = "datastore/shop-agent-extension.otlp.json";
    /** Service {@code inventory}: marked calls that reached production, one unmarked read of the shadow table. */
    public static final String INVENTORY = "datastore/inventory-agent-only.otlp.json";
    /**
     * Service {@code order} of the demo shop (examples/shop), the agent 2.22.0's {@code aws-sdk-2.2} spans of a DynamoDB
     * {@code PutItem} through the AWS SDK 2.57.8 against dynalite: an unmarked one to {@code orders}, then three marked
     * ones the extension sent to {@code orders_shadow} ({@code aws.dynamodb.table_names}, an OTLP array).
     */
    public static final String ORDER_DYNAMODB = "datastore/order-dynamodb.otlp.json";

    private ShadowSpans() {}

    /** The document {@code resource} ({@link #SHOP}, {@link #INVENTORY} or {@link #ORDER_DYNAMODB}) parsed. */
    public static ParsedTraces parse(String resource) {
        try (InputStream in = ShadowSpans.class.getResourceAsStream("/" + resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no test resource " + resource);
            }
            return TraceDocuments.parse(resource, in.readAllBytes());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
