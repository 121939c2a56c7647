-- The shop's own schema (H2 in server mode): production tables and, beside each, its shadow with the same columns,
-- where marked load-test writes go. Spring Boot runs this at inventory's start (spring.sql.init.mode=always).
CREATE TABLE IF NOT EXISTS stock (
  sku         VARCHAR(32) PRIMARY KEY,
  qty         BIGINT      NOT NULL,
  price_cents INT         NOT NULL
);
CREATE TABLE IF NOT EXISTS stock_shadow (
  sku         VARCHAR(32) PRIMARY KEY,
  qty         BIGINT      NOT NULL,
  price_cents INT         NOT NULL
);
CREATE TABLE IF NOT EXISTS reservations (
  id         VARCHAR(40) PRIMARY KEY,
  order_id   VARCHAR(40) NOT NULL,
  sku        VARCHAR(32) NOT NULL,
  qty        INT         NOT NULL,
  created_at TIMESTAMP   NOT NULL
);
CREATE TABLE IF NOT EXISTS reservations_shadow (
  id         VARCHAR(40) PRIMARY KEY,
  order_id   VARCHAR(40) NOT NULL,
  sku        VARCHAR(32) NOT NULL,
  qty        INT         NOT NULL,
  created_at TIMESTAMP   NOT NULL
);
-- written only by the variant SHOP_AUDIT_RESERVATIONS=1: a table added without a shadow
CREATE TABLE IF NOT EXISTS reservation_audit (
  reservation_id VARCHAR(40) NOT NULL,
  note           VARCHAR(200) NOT NULL
);
MERGE INTO stock (sku, qty, price_cents) KEY (sku) VALUES ('A1', 1000000000, 1250), ('B2', 1000000000, 990), ('C3', 1000000000, 4500);
MERGE INTO stock_shadow (sku, qty, price_cents) KEY (sku) VALUES ('A1', 1000000000, 1250), ('B2', 1000000000, 990), ('C3', 1000000000, 4500);
