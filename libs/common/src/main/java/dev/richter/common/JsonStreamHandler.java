package dev.richter.common;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/**
 * Base for Richter's Lambda handlers: reads the event as JSON into {@code I}, calls
 * {@link #handle}, writes the result as JSON. Stream handlers keep cold starts small (no
 * reflection-based runtime serializer) and let the local Lambda host call every function alike.
 *
 * @param <I> event type (a record)
 * @param <O> result type (a record or a Jackson-serializable map)
 */
public abstract class JsonStreamHandler<I, O> implements RequestStreamHandler {
    private final Class<I> inputType;

    protected JsonStreamHandler(Class<I> inputType) {
        this.inputType = inputType;
    }

    /** Handles one parsed event. Exceptions propagate to Lambda (and to Step Functions' Retry/Catch). */
    protected abstract O handle(I input, Context context) throws Exception;

    @Override
    public final void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
        I input = Json.MAPPER.readValue(in, inputType);
        O output;
        try {
            output = handle(input, context);
        } catch (IOException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        Json.MAPPER.writeValue(out, output);
    }
}
