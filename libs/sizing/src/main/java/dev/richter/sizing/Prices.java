package dev.richter.sizing;

/**
 * The AWS prices a {@link RunEstimate} turns usage into dollars with: one immutable value, list prices of
 * one Region, no free tier, no savings plans, no taxes.
 *
 * <p>{@link #US_EAST_1} holds the US East (N. Virginia) list prices as published on the AWS pricing pages
 * (checked 2025; DynamoDB's on-demand prices are those after the 2024-11-01 reduction):
 * <ul>
 *   <li>Lambda, x86: $0.0000166667 per GB-second of duration and $0.20 per 1 million requests
 *       (aws.amazon.com/lambda/pricing/);</li>
 *   <li>Step Functions, Standard workflows: $0.025 per 1,000 state transitions
 *       (aws.amazon.com/step-functions/pricing/);</li>
 *   <li>DynamoDB, on-demand capacity, Standard table class: $0.625 per million write request units and
 *       $0.125 per million read request units (aws.amazon.com/dynamodb/pricing/on-demand/).</li>
 * </ul>
 *
 * @param lambdaUsdPerGbSecond              Lambda duration price, USD per GB-second (memory in GB × billed seconds)
 * @param lambdaUsdPerMillionRequests       Lambda request price, USD per 1,000,000 invocations
 * @param stateTransitionsUsdPerThousand    Step Functions Standard price, USD per 1,000 state transitions
 * @param dynamoDbUsdPerMillionWriteUnits   DynamoDB on-demand write price, USD per 1,000,000 write request units
 *                                          (one WRU writes up to 1 KB of one item)
 * @param dynamoDbUsdPerMillionReadUnits    DynamoDB on-demand read price, USD per 1,000,000 read request units
 *                                          (one RRU reads up to 4 KB strongly consistent, or 8 KB eventually consistent)
 */
public record Prices(double lambdaUsdPerGbSecond, double lambdaUsdPerMillionRequests,
                     double stateTransitionsUsdPerThousand, double dynamoDbUsdPerMillionWriteUnits,
                     double dynamoDbUsdPerMillionReadUnits) {

    /** US East (N. Virginia) list prices, 2025 (sources in the class documentation). */
    public static final Prices US_EAST_1 = new Prices(0.0000166667, 0.20, 0.025, 0.625, 0.125);

    /** @throws IllegalArgumentException when a price is negative or not finite */
    public Prices {
        for (double p : new double[] {lambdaUsdPerGbSecond, lambdaUsdPerMillionRequests, stateTransitionsUsdPerThousand,
                dynamoDbUsdPerMillionWriteUnits, dynamoDbUsdPerMillionReadUnits}) {
            if (!(p >= 0) || Double.isInfinite(p)) {
                throw new IllegalArgumentException("prices must be finite and >= 0: " + p);
            }
        }
    }
}
