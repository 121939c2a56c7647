package dev.richter.agent.it;

/**
 * {@link KafkaConsumerIsolationIT}'s cases for the plain poll loop alone on kafka-clients 4.1.1 with {@code
 * group.protocol=consumer} (KIP-848: the consumer that runs its group membership on a background thread), so both
 * consumers kafka-clients 4 has behind {@code KafkaConsumer} are tested.
 */
class KafkaConsumerOnKafka4IT extends KafkaConsumerIsolationIT {
    @Override
    KafkaConsumerFixture service() throws Exception {
        return new KafkaConsumerFixture(false);
    }
}
