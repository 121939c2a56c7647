package dev.richter.shop.order;

import java.time.Duration;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.http.client.ClientHttpRequestFactoryBuilder;
import org.springframework.boot.http.client.ClientHttpRequestFactorySettings;
import org.springframework.context.annotation.Bean;
import org.springframework.http.client.SimpleClientHttpRequestFactory;
import org.springframework.web.client.RestClient;
import org.springframework.web.client.RestTemplate;
import org.springframework.web.util.DefaultUriBuilderFactory;

/**
 * The shop's order service: places orders by reserving stock at inventory, through a {@link RestTemplate} on its
 * default request factory ({@link SimpleClientHttpRequestFactory}: the JDK's {@code HttpURLConnection}, what
 * {@code new RestTemplate()} and Feign's default client run on), and charging the external payment provider through
 * Spring's {@link RestClient} on Apache HttpClient 5; each placed order is recorded in DynamoDB ({@link PlacedOrders}).
 * Configuration: {@code application.yml}, overridden by the {@code SHOP_*} environment variables named there.
 */
@SpringBootApplication
public class OrderApplication {
    /** Connections per downstream host: above the bulkhead's concurrency, so the pool never queues an order. */
    static final int CONNECTIONS_PER_ROUTE = 64;

    public static void main(String[] args) {
        // HttpURLConnection keeps 5 idle connections per host unless told otherwise; above the bulkhead's concurrency
        // every order past the fifth would open a connection to inventory of its own
        if (System.getProperty("http.maxConnections") == null) {
            System.setProperty("http.maxConnections", String.valueOf(CONNECTIONS_PER_ROUTE));
        }
        SpringApplication.run(OrderApplication.class, args);
    }

    /**
     * Inventory's client: {@code shop.inventory-url}, connects and reads time out after
     * {@code shop.inventory-timeout-ms}; {@code HttpURLConnection} keeps connections alive by itself.
     */
    @Bean
    RestTemplate inventoryClient(@Value("${shop.inventory-url}") String url,
                                 @Value("${shop.inventory-timeout-ms}") int timeoutMs) {
        var factory = new SimpleClientHttpRequestFactory();
        factory.setConnectTimeout(timeoutMs);
        factory.setReadTimeout(timeoutMs);
        var template = new RestTemplate(factory);
        template.setUriTemplateHandler(new DefaultUriBuilderFactory(url));
        return template;
    }

    /** The placed orders' table ({@code shop.orders-table}) at {@code shop.dynamodb-url}. */
    @Bean(destroyMethod = "close")
    PlacedOrders placedOrders(@Value("${shop.dynamodb-url}") String url, @Value("${shop.orders-table}") String table) {
        return new PlacedOrders(java.net.URI.create(url), table);
    }

    /** The payment provider's client: {@code shop.payment-url}, reads time out after {@code shop.payment-timeout-ms}. */
    @Bean
    RestClient paymentClient(RestClient.Builder builder, @Value("${shop.payment-url}") String url,
                             @Value("${shop.payment-timeout-ms}") long timeoutMs) {
        return client(builder, url, timeoutMs);
    }

    private static RestClient client(RestClient.Builder builder, String baseUrl, long timeoutMs) {
        var factory = ClientHttpRequestFactoryBuilder.httpComponents()
                .withConnectionManagerCustomizer(m -> m.setMaxConnPerRoute(CONNECTIONS_PER_ROUTE)
                        .setMaxConnTotal(2 * CONNECTIONS_PER_ROUTE))
                .build(ClientHttpRequestFactorySettings.defaults()
                        .withConnectTimeout(Duration.ofMillis(timeoutMs))
                        .withReadTimeout(Duration.ofMillis(timeoutMs)));
        return builder.clone().baseUrl(baseUrl).requestFactory(factory).build();
    }
}
