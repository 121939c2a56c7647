package dev.richter.shop.inventory;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cache.annotation.EnableCaching;

/**
 * The shop's inventory: stock and reservations in a SQL database (H2 in server mode through HikariCP), stock reads
 * cached in Redis through Spring Data Redis's {@code StringRedisTemplate} over Lettuce ({@code spring.data.redis.url}),
 * prices cached in-process by {@code @Cacheable} over Caffeine ({@link Prices}). All three are what Spring Boot's
 * starters configure by default. Configuration: {@code application.yml}, overridden by the {@code SHOP_*} environment
 * variables named there.
 */
@SpringBootApplication
@EnableCaching
public class InventoryApplication {
    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }
}
