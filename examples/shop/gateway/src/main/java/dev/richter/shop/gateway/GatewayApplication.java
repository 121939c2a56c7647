package dev.richter.shop.gateway;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * The shop's front door: Spring Cloud Gateway routing by path ({@code application.yml}): {@code /orders/**} to
 * order, {@code /stock/**} to inventory.
 */
@SpringBootApplication
public class GatewayApplication {
    public static void main(String[] args) {
        SpringApplication.run(GatewayApplication.class, args);
    }
}
