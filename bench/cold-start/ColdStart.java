import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * One function's cold start, as Lambda's Java runtime would run it but without the runtime interface emulator: loads
 * the handler class from the function's shaded jar with its own {@link URLClassLoader} (the harness's class path holds
 * only this class), constructs it with its no-argument constructor (the Lambda constructor: static init, SDK clients
 * built at init, warm-ups), then calls {@code handleRequest(InputStream, OutputStream, Context)} once with the event.
 *
 * <p>Usage: {@code java ColdStart <function> <jar> <handler class> <event.json>}; the environment names the endpoints
 * ({@code AWS_ENDPOINT_URL_DYNAMODB}, ...), exactly as the Lambda would get its configuration.
 *
 * <p>Prints one line: {@code function=<name> jar_mib=<zipped> unzipped_mib=<entries' sizes> init_ms=<class load +
 * constructor> invoke_ms=<first handleRequest> outcome=<ok | answer-error | threw:<class>>}; {@code answer-error} is an
 * answer whose JSON names an {@code errorType} (Lambda's error shape), {@code threw} a handler that threw. Either still
 * timed the whole first invocation, its AWS calls included. Exit 0 unless the jar or handler cannot be loaded.
 */
public final class ColdStart {
    public static void main(String[] args) throws Exception {
        if (args.length != 4) {
            System.err.println("usage: ColdStart <function> <jar> <handler class> <event.json>");
            System.exit(2);
        }
        String function = args[0];
        File jar = new File(args[1]);
        byte[] event = Files.readAllBytes(Path.of(args[3]));
        long unzipped = 0;
        try (ZipFile z = new ZipFile(jar)) {
            for (Enumeration<? extends ZipEntry> e = z.entries(); e.hasMoreElements(); ) {
                unzipped += Math.max(0, e.nextElement().getSize());
            }
        }

        long t0 = System.nanoTime();
        URLClassLoader loader = new URLClassLoader(new URL[] {jar.toURI().toURL()}, ClassLoader.getPlatformClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        Class<?> handlerClass = Class.forName(args[2], true, loader);
        Object handler = handlerClass.getConstructor().newInstance();
        long t1 = System.nanoTime();

        Class<?> contextType = Class.forName("com.amazonaws.services.lambda.runtime.Context", false, loader);
        Class<?> loggerType = Class.forName("com.amazonaws.services.lambda.runtime.LambdaLogger", false, loader);
        Object logger = Proxy.newProxyInstance(loader, new Class<?>[] {loggerType}, (p, m, a) -> {
            if (m.getName().equals("log") && a != null && a.length > 0) {
                System.err.println(a[0] instanceof byte[] b ? new String(b) : String.valueOf(a[0]));
            }
            return null;
        });
        long deadlineMs = System.currentTimeMillis() + 120_000;
        Object context = Proxy.newProxyInstance(loader, new Class<?>[] {contextType}, (p, m, a) -> switch (m.getName()) {
            case "getRemainingTimeInMillis" -> (int) Math.max(0, deadlineMs - System.currentTimeMillis());
            case "getAwsRequestId" -> "cold-start-bench";
            case "getFunctionName" -> function;
            case "getFunctionVersion" -> "$LATEST";
            case "getInvokedFunctionArn" -> "arn:aws:lambda:us-east-1:000000000000:function:" + function;
            case "getMemoryLimitInMB" -> 1024;
            case "getLogGroupName" -> "/aws/lambda/" + function;
            case "getLogStreamName" -> "cold-start-bench";
            case "getLogger" -> logger;
            case "hashCode" -> System.identityHashCode(p);
            case "equals" -> p == a[0];
            case "toString" -> "ColdStartContext";
            default -> null;
        });
        Method handle = handlerClass.getMethod("handleRequest",
                java.io.InputStream.class, java.io.OutputStream.class, contextType);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String outcome;
        long t2 = System.nanoTime();
        try {
            handle.invoke(handler, new ByteArrayInputStream(event), out, context);
            outcome = out.toString().contains("\"errorType\"") ? "answer-error" : "ok";
        } catch (InvocationTargetException e) {
            outcome = "threw:" + e.getCause().getClass().getSimpleName();
            System.err.println("threw: " + e.getCause());
        }
        long t3 = System.nanoTime();
        System.err.println("answer: " + out.toString().substring(0, Math.min(300, out.size())));
        System.out.printf("function=%s jar_mib=%.1f unzipped_mib=%.1f init_ms=%d invoke_ms=%d outcome=%s%n",
                function, jar.length() / 1048576.0, unzipped / 1048576.0,
                (t1 - t0) / 1_000_000, (t3 - t2) / 1_000_000, outcome);
        System.out.flush();
        // the handlers' non-daemon threads (Netty, HTTP clients) must not keep the JVM
        Runtime.getRuntime().halt(0);
    }
}
