package dev.richter.shop.inventory;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.context.annotation.Bean;
import redis.clients.jedis.JedisPooled;

/**
 * The shop's inventory: stock and reservations in a SQL database (H2 in server mode through HikariCP), stock reads
 * cached in Redis. Configuration: {@code application.yml}, overridden by the {@code SHOP_*} environment variables
 * named there.
 */
@SpringBootApplication
public class InventoryApplication {
    public static void main(String[] args) {
        SpringApplication.run(InventoryApplication.class, args);
    }

    /** The Redis client of the stock cache, at {@code shop.redis-url} ({@code redis://host:port}). */
    @Bean(destroyMethod = "close")
    JedisPooled redis(@Value("${shop.redis-url}") String url) {
        return new JedisPooled(java.net.URI.create(url));
    }
}
