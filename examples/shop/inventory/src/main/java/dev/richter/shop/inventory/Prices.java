package dev.richter.shop.inventory;

import java.util.List;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;

/**
 * A sku's unit price in cents, read from {@code stock.price_cents} and cached in-process under the sku in the
 * {@value #CACHE} cache ({@code @Cacheable}; Caffeine, sized and timed by {@code spring.cache.caffeine.spec}, its
 * statistics published as {@code cache_gets_total} and {@code cache_puts_total} with {@code cache="prices"}).
 */
@Component
public class Prices {
    /** The cache's name in Spring's cache manager and in its metrics. */
    public static final String CACHE = "prices";

    private final JdbcTemplate db;

    public Prices(JdbcTemplate db) {
        this.db = db;
    }

    /** The price of {@code sku} in cents, or null for an unknown sku (not cached). */
    @Cacheable(cacheNames = CACHE, unless = "#result == null")
    public Long centsOf(String sku) {
        List<Long> price = db.queryForList("SELECT price_cents FROM stock WHERE sku = ?", Long.class, sku);
        return price.isEmpty() ? null : price.get(0);
    }
}
