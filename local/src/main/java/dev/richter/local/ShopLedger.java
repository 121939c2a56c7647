package dev.richter.local;

import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What the demo shop's own stores hold, read from the shop's side and never from Richter's: the rows of each table of
 * its database and the units of stock left (H2 in server mode, over JDBC), and the payment provider's own counters of
 * the charges and fraud scores that reached it ({@code GET /admin/charges}). Two readings, taken before and after a
 * run that was the shop's only traffic, say where the run's marked writes and calls went ({@link #minus}).
 *
 * @param rows        rows per table, by table name ({@link #TABLES})
 * @param stockUnits  {@code SUM(qty)} of {@code stock} and of {@code stock_shadow}, by table name
 * @param charges     charges the payment provider received
 * @param scores      fraud scores the payment provider answered
 */
public record ShopLedger(Map<String, Long> rows, Map<String, Long> stockUnits, long charges, long scores) {
    /** The shop's tables: production, their shadows, and the audit table that has no shadow. */
    public static final List<String> TABLES =
            List.of("reservations", "reservations_shadow", "stock", "stock_shadow", "reservation_audit");

    public ShopLedger {
        rows = Map.copyOf(rows);
        stockUnits = Map.copyOf(stockUnits);
    }

    /**
     * Reads the ledger now.
     *
     * @param jdbcUrl    the shop's database, e.g. {@code jdbc:h2:tcp://127.0.0.1:18092/shop}
     * @param paymentUrl the payment provider's base URL, e.g. {@code http://127.0.0.1:18083}
     * @throws IOException when the database or the payment provider cannot be read
     */
    public static ShopLedger read(String jdbcUrl, String paymentUrl) throws IOException, InterruptedException {
        Map<String, Long> rows = new LinkedHashMap<>();
        Map<String, Long> units = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(jdbcUrl, "sa", ""); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                rows.put(table, single(s, "SELECT COUNT(*) FROM " + table));
            }
            for (String table : List.of("stock", "stock_shadow")) {
                units.put(table, single(s, "SELECT COALESCE(SUM(qty), 0) FROM " + table));
            }
        } catch (SQLException e) {
            throw new IOException("cannot read the shop's database " + jdbcUrl + ": " + e.getMessage(), e);
        }
        HttpResponse<String> r;
        try (HttpClient http = HttpClient.newHttpClient()) {
            r = http.send(HttpRequest.newBuilder(URI.create(paymentUrl + "/admin/charges")).timeout(Duration.ofSeconds(5))
                    .build(), HttpResponse.BodyHandlers.ofString());
        }
        if (r.statusCode() != 200) {
            throw new IOException("payment " + paymentUrl + "/admin/charges answered " + r.statusCode());
        }
        var counts = Json.MAPPER.readTree(r.body());
        return new ShopLedger(rows, units, counts.path("charges").asLong(), counts.path("scores").asLong());
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /** This reading less an earlier one: rows added, stock units taken (positive when stock went down), calls made. */
    public ShopLedger minus(ShopLedger before) {
        Map<String, Long> rowDelta = new LinkedHashMap<>();
        rows.forEach((t, n) -> rowDelta.put(t, n - before.rows.getOrDefault(t, 0L)));
        Map<String, Long> taken = new LinkedHashMap<>();
        stockUnits.forEach((t, n) -> taken.put(t, before.stockUnits.getOrDefault(t, 0L) - n));
        return new ShopLedger(rowDelta, taken, charges - before.charges, scores - before.scores);
    }

    /**
     * The demo's isolation line for a difference of two readings ({@link #minus}) and the spans the extension refused,
     * e.g. {@code isolation: 0 marked rows in production (reservations), 1240 in shadow (reservations_shadow);
     * stock taken: 0 units in production (stock), 1240 in shadow (stock_shadow); 0 marked calls reached payment;
     * 0 refused}.
     */
    public String isolationLine(long refused) {
        return String.format(java.util.Locale.ROOT,
                "isolation: %d marked rows in production (reservations%s), %d in shadow (reservations_shadow); "
                        + "stock taken: %d units in production (stock), %d in shadow (stock_shadow); "
                        + "%d marked calls reached payment; %d refused",
                rows.get("reservations") + rows.get("reservation_audit"),
                rows.get("reservation_audit") == 0 ? "" : ", reservation_audit", rows.get("reservations_shadow"),
                stockUnits.get("stock"), stockUnits.get("stock_shadow"), charges + scores, refused);
    }
}
