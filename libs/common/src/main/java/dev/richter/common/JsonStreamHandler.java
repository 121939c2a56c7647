package dev.richter.common;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.exc.InvalidTypeIdException;
import dev.richter.common.metrics.RichterMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Arrays;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Base for Richter's Lambda handlers: decodes the event once, as JSON, into {@code I}, opens the run's log context
 * from it, calls {@link #handle}, closes the context and writes the result as JSON. Stream handlers keep cold starts
 * small (no reflection-based runtime serializer) and let the local Lambda host call every function alike.
 *
 * <p>A function with several actions declares {@code I} as a sealed interface of one record per action, typed by
 * Jackson on the event's action field ({@code @JsonTypeInfo(use = NAME, property = "action")} with
 * {@code @JsonSubTypes} naming each record): an event whose action is missing or names no record fails with an
 * {@link IllegalArgumentException} {@code unknown action 'x'; expected one of a, b} (or {@code missing action; ...}).
 *
 * <p>The log context ({@link RunLogContext}) carries the fields of an input that is {@link RunScoped}; an input that
 * is a {@link JsonNode} is read as {@link RunLogContext#open(JsonNode)} reads it; any other input opens an empty
 * context. So no line of one invocation carries the run fields of the one before.
 *
 * @param <I> event type (a record, or a sealed interface of records)
 * @param <O> result type (a record or a Jackson-serializable map)
 */
public abstract class JsonStreamHandler<I, O> implements RequestStreamHandler {
    private static final Logger LOG = LoggerFactory.getLogger(JsonStreamHandler.class);
    private final Class<I> inputType;

    /** @param inputType what every event decodes into (see {@link #decode(InputStream, Class)}) */
    protected JsonStreamHandler(Class<I> inputType) {
        this.inputType = inputType;
    }

    /**
     * Handles one decoded event, inside its log context. Exceptions propagate to Lambda (and to Step Functions'
     * Retry/Catch).
     */
    protected abstract O handle(I input, Context context) throws Exception;

    @Override
    public final void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
        I input = decode(in, inputType);
        O output;
        try (RunLogContext ignored = openLogContext(input)) {
            output = handle(input, context);
        } catch (IOException | RuntimeException e) {
            countIfDenied(e, context);
            throw e;
        } catch (Exception e) {
            countIfDenied(e, context);
            throw new IllegalStateException(e.getMessage(), e);
        }
        Json.MAPPER.writeValue(out, output);
    }

    /**
     * A denied AWS call ({@link AccessDenied}) that fails the invocation is logged as an error and counted in Richter's
     * own metrics: {@code AccessDenied} = 1 with the message as property {@code error}, Function dimension
     * {@link #metricsFunction}.
     */
    private static void countIfDenied(Exception e, Context context) {
        if (!AccessDenied.isAccessDenied(e)) {
            return;
        }
        String function = metricsFunction(context == null ? "" : context.getFunctionName());
        LOG.error("{}: an AWS call was denied (a permission template.yaml does not grant): {}", function, e.toString());
        RichterMetrics.forFunction(function).emission().count("AccessDenied", 1).property("error", String.valueOf(e.getMessage())).flush();
    }

    /**
     * The Function dimension of Richter's metrics for a Lambda function name: the logical id without its stack prefix,
     * random suffix and {@code Function}, in kebab case ({@code richter-ReportFunction-1AbC2} and {@code ReportFunction}
     * → {@code report}).
     */
    static String metricsFunction(String functionName) {
        String name = functionName == null ? "" : functionName;
        String[] parts = name.split("-");
        for (String p : parts) {
            if (p.endsWith("Function") && p.length() > "Function".length()) {
                name = p;
                break;
            }
        }
        if (name.endsWith("Function")) {
            name = name.substring(0, name.length() - "Function".length());
        }
        return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
    }

    /**
     * Decodes one event into {@code type}, as a handler of that input type does.
     *
     * @throws IllegalArgumentException when {@code type} is typed by an action and the event's is missing or unknown
     * @throws IOException              for JSON that is malformed or does not fit {@code type}
     */
    public static <T> T decode(InputStream in, Class<T> type) throws IOException {
        try {
            return Json.MAPPER.readValue(in, type);
        } catch (InvalidTypeIdException e) {
            if (e.getBaseType() == null || e.getBaseType().getRawClass() != type) {
                throw e;
            }
            throw new IllegalArgumentException(unknownAction(type, e.getTypeId()), e);
        }
    }

    private static String unknownAction(Class<?> type, String typeId) {
        JsonTypeInfo info = type.getAnnotation(JsonTypeInfo.class);
        String property = info == null || info.property().isEmpty() ? "action" : info.property();
        JsonSubTypes subtypes = type.getAnnotation(JsonSubTypes.class);
        String names = subtypes == null ? "" : Arrays.stream(subtypes.value()).map(JsonSubTypes.Type::name)
                .collect(Collectors.joining(", "));
        return (typeId == null || typeId.isEmpty() ? "missing " + property : "unknown " + property + " '" + typeId + "'")
                + "; expected one of " + names;
    }

    private static RunLogContext openLogContext(Object input) {
        if (input instanceof RunScoped run) {
            return RunLogContext.open(run.runId(), run.teamId(), run.stage(), run.stepInStage());
        }
        if (input instanceof JsonNode event) {
            return RunLogContext.open(event);
        }
        return RunLogContext.open(null, null, null, null);
    }
}
