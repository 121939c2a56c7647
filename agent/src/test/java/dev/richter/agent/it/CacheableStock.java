package dev.richter.agent.it;

import com.github.benmanes.caffeine.cache.Caffeine;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.cache.CacheManager;
import org.springframework.cache.annotation.Cacheable;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.cache.caffeine.CaffeineCacheManager;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Issue 40's case in {@link CaffeineTestApp}: a Spring service whose {@code @Cacheable("stock")} method is cached by
 * Spring Boot's usual {@code CaffeineCacheManager} (maximum 100). The method stands for a read of the database: it
 * answers {@code stock#<its call count>}, so the caller sees which call its value came from.
 */
@Configuration
@EnableCaching
public class CacheableStock {
    /** How many times {@link #stock} ran (a cache miss each). */
    static final AtomicInteger READS = new AtomicInteger();

    @Bean
    public CacheManager cacheManager() {
        CaffeineCacheManager manager = new CaffeineCacheManager("stock");
        manager.setCaffeine(Caffeine.newBuilder().maximumSize(100));
        return manager;
    }

    @Bean
    public Stock stockService() {
        return new Stock();
    }

    /** The cached service. */
    public static class Stock {
        @Cacheable("stock")
        public String stock(String sku) {
            return "stock#" + READS.incrementAndGet();
        }
    }
}
