package dev.richter.local;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code ./richter shop configure|warm}: the demo's own setup of the demo shop, for a script that starts the shop
 * itself with {@code examples/shop/shop.sh} (examples/ci/regression-demo.sh).
 *
 * <ul>
 *   <li>{@code configure} registers the shop's services and the team's safety configuration through the API as
 *       {@code ./richter demo} does ({@link Demo#configure}: gateway, order, inventory at {@code 127.0.0.1} on the
 *       shop's default ports, inventory's shadow tables and keys, the payment exit mocked, isolation enforced); run it
 *       before the shop starts, so that its agent extension's first load is the whole isolation.</li>
 *   <li>{@code warm} sends the shop's gateway ({@code --gateway}) the {@value Shop#WARM_ORDERS} real (unmarked) orders
 *       the demo warms it with ({@link Shop#warm(String)}), then waits out order's circuit breaker: about 6 s.</li>
 * </ul>
 *
 * <p>Where it sends: {@code --api} (default {@code $RICHTER_API_URL}, else {@value ImportMain#LOCAL_API}), with
 * {@code --token} (default {@code $RICHTER_TOKEN}, else a token of the local identity provider for {@code --team}).
 *
 * <p>Exit status: 0 when done; 1 when the API refused a registration or could not be reached; 2 for bad arguments.
 */
@Command(name = "./richter shop", mixinStandardHelpOptions = true,
        description = "The demo shop's setup: configure (register its services and safety configuration) or warm"
                + " (send it " + Shop.WARM_ORDERS + " real orders).")
public final class ShopMain implements Callable<Integer> {
    /** What to do. */
    enum Action { configure, warm }

    @Parameters(index = "0", paramLabel = "ACTION", description = "configure or warm")
    Action action;

    @Mixin
    ApiOptions target = new ApiOptions();

    @Option(names = "--gateway", description = "the shop's gateway, for warm (default: http://127.0.0.1:" + Shop.GATEWAY_PORT + ")")
    String gateway = "http://127.0.0.1:" + Shop.GATEWAY_PORT;

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;

    /** Reads the process environment and prints to the standard streams. */
    public ShopMain() {
        this(System.getenv(), System.out, System.err);
    }

    ShopMain(Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = env;
        this.out = out;
        this.err = err;
    }

    /** Runs the command and exits with its status. */
    public static void main(String[] args) {
        ShopMain command = new ShopMain();
        System.exit(new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true)
                .setOut(new PrintWriter(command.out, true)).setErr(new PrintWriter(command.err, true)).execute(args));
    }

    @Override
    public Integer call() throws Exception {
        switch (action) {
            case warm -> {
                out.println("warming the shop with " + Shop.WARM_ORDERS + " real orders through " + gateway);
                Shop.warm(gateway);
            }
            case configure -> {
                String base = target.base(env);
                try {
                    Demo.configure(LocalAwsStack.rootFromEnv(), new ApiClient(base, target.bearer(env)), "127.0.0.1",
                            out::println);
                } catch (ConnectException e) {
                    err.println("no Richter API answers at " + base + ": start the local stack with ./richter stack, or set --api");
                    return 1;
                } catch (IllegalStateException e) {
                    err.println("not configured: " + e.getMessage());
                    return 1;
                }
            }
        }
        return 0;
    }
}
