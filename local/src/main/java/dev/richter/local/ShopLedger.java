package dev.richter.local;

import dev.richter.common.Json;
import dev.richter.probe.MetricSample;
import dev.richter.probe.PrometheusTextParser;
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
import java.util.Locale;
import java.util.Map;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.Select;

/**
 * What the demo shop's own stores hold, read from the shop's side and never from Richter's, for every store the shop
 * writes with Spring Boot's default clients:
 * <ul>
 *   <li>its SQL database (H2 in server mode, over JDBC): the rows of each table ({@link #TABLES}) and the units of
 *       stock left;</li>
 *   <li>its DynamoDB (the shop's dynalite, over the AWS SDK): the items of the placed orders' table and of its shadow
 *       ({@link #DYNAMODB_TABLES}, {@code Scan} with {@code Select.COUNT});</li>
 *   <li>its Redis (written by inventory through Spring Data Redis over Lettuce): for each key of the production key
 *       space {@code stock:}, when it was last read or written ({@code OBJECT IDLETIME}, which neither reads nor
 *       writes it), and how many keys the shadow key space {@code shadow:stock:} holds;</li>
 *   <li>inventory's in-process price cache ({@code @Cacheable} over Caffeine): its own counters of reads and writes
 *       ({@code cache_gets_total} and {@code cache_puts_total} with {@code cache="prices"}, from inventory's Prometheus
 *       scrape), which count the production cache alone (the extension's shadow cache keeps no statistics);</li>
 *   <li>the payment provider's own counters of the charges and fraud scores that reached it ({@code GET
 *       /admin/charges}).</li>
 * </ul>
 * Two readings, taken before and after a run that was the shop's only traffic, say where the run's marked writes and
 * calls went ({@link #minus}).
 *
 * @param rows          rows per table, by table name ({@link #TABLES})
 * @param stockUnits    {@code SUM(qty)} of {@code stock} and of {@code stock_shadow}, by table name
 * @param items         DynamoDB items per table, by table name ({@link #DYNAMODB_TABLES})
 * @param redisKeys     in a reading, the production keys' idle seconds by key; in a difference, the production keys
 *                      read or written between the two readings (each with its idle seconds at the second)
 * @param shadowKeys    keys of the shadow key space (in a difference: at the second reading)
 * @param priceCacheOps reads and writes of the production price cache (in a difference: between the readings)
 * @param charges       charges the payment provider received
 * @param scores        fraud scores the payment provider answered
 * @param readAtMs      epoch ms of the reading (in a difference: of the second)
 */
public record ShopLedger(Map<String, Long> rows, Map<String, Long> stockUnits, Map<String, Long> items,
                         Map<String, Long> redisKeys, long shadowKeys, long priceCacheOps, long charges, long scores,
                         long readAtMs) {
    /** The shop's tables: production, their shadows, and the audit table that has no shadow. */
    public static final List<String> TABLES =
            List.of("reservations", "reservations_shadow", "stock", "stock_shadow", "reservation_audit");
    /** Order's DynamoDB table of placed orders and its shadow. */
    public static final List<String> DYNAMODB_TABLES = List.of("orders", "orders_shadow");
    /** Inventory's Redis key spaces: production and shadow ({@code kind: cache} of the demo's registration). */
    public static final String REDIS_PRODUCTION = "stock:";
    public static final String REDIS_SHADOW = "shadow:stock:";

    public ShopLedger {
        rows = Map.copyOf(rows);
        stockUnits = Map.copyOf(stockUnits);
        items = Map.copyOf(items);
        redisKeys = Map.copyOf(redisKeys);
    }

    /**
     * Where a reading is taken from: each of the shop's stores and counters.
     *
     * @param jdbcUrl      the database, e.g. {@code jdbc:h2:tcp://127.0.0.1:18092/shop}
     * @param dynamodbUrl  the DynamoDB endpoint, e.g. {@code http://127.0.0.1:18096}
     * @param redisUrl     Redis, e.g. {@code redis://127.0.0.1:18093}
     * @param inventoryUrl inventory's base URL (its {@code /actuator/prometheus}), e.g. {@code http://127.0.0.1:18082}
     * @param paymentUrl   the payment provider's base URL, e.g. {@code http://127.0.0.1:18083}
     */
    public record Sources(String jdbcUrl, String dynamodbUrl, String redisUrl, String inventoryUrl, String paymentUrl) {}

    /**
     * Reads the ledger now.
     *
     * @throws IOException when a store or counter cannot be read, naming it
     */
    public static ShopLedger read(Sources from) throws IOException, InterruptedException {
        long readAt = System.currentTimeMillis();
        Map<String, Long> rows = new LinkedHashMap<>();
        Map<String, Long> units = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(from.jdbcUrl(), "sa", ""); Statement s = c.createStatement()) {
            for (String table : TABLES) {
                rows.put(table, single(s, "SELECT COUNT(*) FROM " + table));
            }
            for (String table : List.of("stock", "stock_shadow")) {
                units.put(table, single(s, "SELECT COALESCE(SUM(qty), 0) FROM " + table));
            }
        } catch (SQLException e) {
            throw new IOException("cannot read the shop's database " + from.jdbcUrl() + ": " + e.getMessage(), e);
        }
        Map<String, Long> items = dynamoItems(from.dynamodbUrl());
        Map<String, Long> idle = new LinkedHashMap<>();
        long shadowKeys;
        try (Jedis redis = new Jedis(URI.create(from.redisUrl()))) {
            for (String key : keys(redis, REDIS_PRODUCTION)) {
                Long seconds = redis.objectIdletime(key);
                if (seconds != null) {
                    idle.put(key, seconds);
                }
            }
            shadowKeys = keys(redis, REDIS_SHADOW).size();
        } catch (RuntimeException e) {
            throw new IOException("cannot read the shop's Redis " + from.redisUrl() + ": " + e.getMessage(), e);
        }
        long cacheOps;
        long charges;
        long scores;
        try (HttpClient http = HttpClient.newHttpClient()) {
            cacheOps = priceCacheOps(get(http, from.inventoryUrl() + "/actuator/prometheus"));
            var counts = Json.MAPPER.readTree(get(http, from.paymentUrl() + "/admin/charges"));
            charges = counts.path("charges").asLong();
            scores = counts.path("scores").asLong();
        }
        return new ShopLedger(rows, units, items, idle, shadowKeys, cacheOps, charges, scores, readAt);
    }

    private static Map<String, Long> dynamoItems(String endpoint) throws IOException {
        Map<String, Long> items = new LinkedHashMap<>();
        try (DynamoDbClient dynamo = DynamoDbClient.builder().endpointOverride(URI.create(endpoint))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("shop", "shop")))
                .build()) {
            for (String table : DYNAMODB_TABLES) {
                long n = 0;
                for (var page : dynamo.scanPaginator(b -> b.tableName(table).select(Select.COUNT))) {
                    n += page.count();
                }
                items.put(table, n);
            }
        } catch (RuntimeException e) {
            throw new IOException("cannot read the shop's DynamoDB " + endpoint + ": " + e.getMessage(), e);
        }
        return items;
    }

    private static List<String> keys(Jedis redis, String prefix) {
        List<String> keys = new java.util.ArrayList<>();
        ScanParams match = new ScanParams().match(prefix + "*").count(1000);
        String cursor = ScanParams.SCAN_POINTER_START;
        do {
            ScanResult<String> page = redis.scan(cursor, match);
            keys.addAll(page.getResult());
            cursor = page.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        return keys;
    }

    /**
     * The sum of {@code cache_gets_total} and {@code cache_puts_total} with {@code cache="prices"} in a Prometheus text
     * scrape (Spring Boot's cache metrics of a Caffeine cache that records its statistics).
     *
     * @throws IOException when the scrape has neither, so the cache's counters cannot be read
     */
    static long priceCacheOps(String scrape) throws IOException {
        double sum = 0;
        boolean seen = false;
        for (MetricSample s : PrometheusTextParser.parse(scrape).samples()) {
            if ((s.name().equals("cache_gets_total") || s.name().equals("cache_puts_total"))
                    && "prices".equals(s.labels().get("cache"))) {
                sum += s.value();
                seen = true;
            }
        }
        if (!seen) {
            throw new IOException("inventory's scrape has no cache_gets_total or cache_puts_total of cache=\"prices\"");
        }
        return Math.round(sum);
    }

    private static String get(HttpClient http, String url) throws IOException, InterruptedException {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IOException(url + " answered " + r.statusCode());
        }
        return r.body();
    }

    private static long single(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * This reading less an earlier one: rows and items added, stock units taken (positive when stock went down), the
     * production Redis keys read or written in between (idle for less than the time between the readings, less the
     * second of Redis's idle clock), price cache reads and writes, calls made.
     */
    public ShopLedger minus(ShopLedger before) {
        Map<String, Long> rowDelta = new LinkedHashMap<>();
        rows.forEach((t, n) -> rowDelta.put(t, n - before.rows.getOrDefault(t, 0L)));
        Map<String, Long> taken = new LinkedHashMap<>();
        stockUnits.forEach((t, n) -> taken.put(t, before.stockUnits.getOrDefault(t, 0L) - n));
        Map<String, Long> itemDelta = new LinkedHashMap<>();
        items.forEach((t, n) -> itemDelta.put(t, n - before.items.getOrDefault(t, 0L)));
        long betweenS = (readAtMs - before.readAtMs) / 1000 - 1;
        Map<String, Long> touched = new LinkedHashMap<>();
        redisKeys.forEach((key, idleS) -> {
            if (idleS < betweenS || !before.redisKeys.containsKey(key)) {
                touched.put(key, idleS);
            }
        });
        return new ShopLedger(rowDelta, taken, itemDelta, touched, shadowKeys, priceCacheOps - before.priceCacheOps,
                charges - before.charges, scores - before.scores, readAtMs);
    }

    /**
     * The demo's isolation line for a difference of two readings ({@link #minus}) and the spans the extension refused,
     * one clause a store, production first, e.g. {@code isolation: 0 marked rows in production (reservations), 1240 in
     * shadow (reservations_shadow); stock taken: 0 units in production (stock), 1240 in shadow (stock_shadow); DynamoDB:
     * 0 items in production (orders), 1240 in shadow (orders_shadow); Redis: 0 production keys touched (stock:*), 2
     * shadow keys (shadow:stock:*); price cache: 0 production reads or writes; 0 marked calls reached payment; 0
     * refused}.
     */
    public String isolationLine(long refused) {
        return String.format(Locale.ROOT,
                "isolation: %d marked rows in production (reservations%s), %d in shadow (reservations_shadow); "
                        + "stock taken: %d units in production (stock), %d in shadow (stock_shadow); "
                        + "DynamoDB: %d items in production (orders), %d in shadow (orders_shadow); "
                        + "Redis: %d production keys touched (%s*), %d shadow keys (%s*); "
                        + "price cache: %d production reads or writes; "
                        + "%d marked calls reached payment; %d refused",
                rows.get("reservations") + rows.get("reservation_audit"),
                rows.get("reservation_audit") == 0 ? "" : ", reservation_audit", rows.get("reservations_shadow"),
                stockUnits.get("stock"), stockUnits.get("stock_shadow"), items.get("orders"),
                items.get("orders_shadow"), redisKeys.size(), REDIS_PRODUCTION, shadowKeys, REDIS_SHADOW,
                priceCacheOps, charges + scores, refused);
    }

    /** Production effects of a difference ({@link #minus}): rows, stock, items, Redis keys, cache operations, calls. */
    public long productionEffects() {
        return rows.get("reservations") + rows.get("reservation_audit") + stockUnits.get("stock") + items.get("orders")
                + redisKeys.size() + priceCacheOps + charges + scores;
    }
}
