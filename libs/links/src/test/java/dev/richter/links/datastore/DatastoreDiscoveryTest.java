package dev.richter.links.datastore;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link DatastoreDiscovery} on the agent's real spans ({@link ShadowSpans}). */
class DatastoreDiscoveryTest {
    private static List<String> described(String resource) {
        return DatastoreDiscovery.discover(ShadowSpans.parse(resource).spans()).stream()
                .map(d -> d.service() + " " + d.kind() + " " + d.namespace() + "/" + d.name() + " " + d.system()
                        + (d.writes() ? " writes" : " reads"))
                .toList();
    }

    @Test
    void theShopsTablesKeySpacesAndTopicsAsTheApplicationNamedThem() {
        // in order of first sighting: the order the exporter wrote its batches
        assertEquals(List.of("shop table mem:shop/visits h2 writes", "shop cache /stock: redis writes",
                "shop cache /config: redis reads", "shop table mem:shop/customers h2 reads",
                "shop table mem:shop/audit h2 writes", "shop table mem:ledger/entries h2 writes",
                "shop cache /session: redis writes", "shop topic /orders kafka writes", "shop topic /payments kafka writes"),
                described(ShadowSpans.SHOP));
    }

    @Test
    void theNewSemconvNamesTheSameThingsAndAShadowReadIsSeenToo() {
        assertEquals(List.of("inventory table mem:shop/visits h2database writes",
                "inventory table mem:shop/customers h2database reads",
                "inventory table mem:shop/visits_shadow h2database reads",
                "inventory table mem:billing/invoices h2database writes", "inventory cache /stock: redis writes",
                "inventory topic /orders kafka writes"), described(ShadowSpans.INVENTORY));
    }

    @Test
    void aLaterSightingKeepsTheLatestTimeAndOnceWrittenStaysWritten() {
        DiscoveredDatastore read = new DiscoveredDatastore("shop", "table", "Visits", "h2", "mem:shop", false, 200);
        DiscoveredDatastore written = new DiscoveredDatastore("shop", "table", "visits", "h2", "MEM:SHOP", true, 100);
        assertEquals(read.key(), written.key(), "SQL names compare case-insensitively");
        assertEquals(new DiscoveredDatastore("shop", "table", "Visits", "h2", "mem:shop", true, 200), read.merge(written));
    }
}
