package dev.richter.sizing;

/**
 * The AWS prices a {@link RunEstimate} turns usage into dollars with: one immutable value, list prices of
 * one Region for one Lambda architecture, no free tier, no savings plans, no taxes.
 *
 * <p>{@link #US_EAST_1} holds the US East (N. Virginia) list prices for functions on arm64 (Graviton), the
 * architecture every Richter function runs on ({@code template.yaml} Globals {@code Architectures}); {@link
 * #US_EAST_1_X86_64} the same Region's prices on x86_64. As published on the AWS pricing pages (checked 2025;
 * DynamoDB's on-demand prices are those after the 2024-11-01 reduction):
 * <ul>
 *   <li>Lambda, arm64: $0.0000133334 per GB-second of duration (first 7.5 billion GB-seconds a month); x86:
 *       $0.0000166667 per GB-second; both $0.20 per 1 million requests (aws.amazon.com/lambda/pricing/);</li>
 *   <li>Step Functions, Standard workflows: $0.025 per 1,000 state transitions
 *       (aws.amazon.com/step-functions/pricing/);</li>
 *   <li>DynamoDB, on-demand capacity, Standard table class: $0.625 per million write request units and
 *       $0.125 per million read request units (aws.amazon.com/dynamodb/pricing/on-demand/).</li>
 * </ul>
 *
 * @param lambdaArchitecture                the Lambda architecture the duration price is for: {@code arm64} or
 *                                          {@code x86_64}
 * @param lambdaUsdPerGbSecond              Lambda duration price on that architecture, USD per GB-second (memory in GB ×
 *                                          billed seconds)
 * @param lambdaUsdPerMillionRequests       Lambda request price, USD per 1,000,000 invocations
 * @param stateTransitionsUsdPerThousand    Step Functions Standard price, USD per 1,000 state transitions
 * @param dynamoDbUsdPerMillionWriteUnits   DynamoDB on-demand write price, USD per 1,000,000 write request units
 *                                          (one WRU writes up to 1 KB of one item)
 * @param dynamoDbUsdPerMillionReadUnits    DynamoDB on-demand read price, USD per 1,000,000 read request units
 *                                          (one RRU reads up to 4 KB strongly consistent, or 8 KB eventually consistent)
 */
public record Prices(String lambdaArchitecture, double lambdaUsdPerGbSecond, double lambdaUsdPerMillionRequests,
                     double stateTransitionsUsdPerThousand, double dynamoDbUsdPerMillionWriteUnits,
                     double dynamoDbUsdPerMillionReadUnits) {

    /** The architecture of {@link #US_EAST_1}, and of every function in {@code template.yaml}. */
    public static final String ARM64 = "arm64";
    /** The other Lambda architecture. */
    public static final String X86_64 = "x86_64";

    /** US East (N. Virginia) list prices on arm64, 2025 (sources in the class documentation): what runs cost. */
    public static final Prices US_EAST_1 = new Prices(ARM64, 0.0000133334, 0.20, 0.025, 0.625, 0.125);
    /** US East (N. Virginia) list prices on x86_64, 2025 (sources in the class documentation), for comparison. */
    public static final Prices US_EAST_1_X86_64 = new Prices(X86_64, 0.0000166667, 0.20, 0.025, 0.625, 0.125);

    /**
     * @throws IllegalArgumentException when the architecture is neither {@code arm64} nor {@code x86_64}, or a price
     *                                  is negative or not finite
     */
    public Prices {
        if (!ARM64.equals(lambdaArchitecture) && !X86_64.equals(lambdaArchitecture)) {
            throw new IllegalArgumentException("lambdaArchitecture must be arm64 or x86_64, was " + lambdaArchitecture);
        }
        for (double p : new double[] {lambdaUsdPerGbSecond, lambdaUsdPerMillionRequests, stateTransitionsUsdPerThousand,
                dynamoDbUsdPerMillionWriteUnits, dynamoDbUsdPerMillionReadUnits}) {
            if (!(p >= 0) || Double.isInfinite(p)) {
                throw new IllegalArgumentException("prices must be finite and >= 0: " + p);
            }
        }
    }
}
