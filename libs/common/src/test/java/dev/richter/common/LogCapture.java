package dev.richter.common;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.Property;

/**
 * Keeps, while open, every log line the functions write, rendered by the layout of {@code log4j2.xml}'s
 * {@code Lambda} appender ({@code LambdaLayout.json}: one JSON object per line, as Lambda's JSON log format shows it).
 * For tests of what a function logs; JVM-wide.
 */
public final class LogCapture implements AutoCloseable {
    private static final String NAME = "richter-log-capture";
    private final List<String> lines = new CopyOnWriteArrayList<>();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);

    /** Adds the capturing appender to the root logger. */
    public LogCapture() {
        Configuration config = context.getConfiguration();
        AbstractAppender appender = new AbstractAppender(NAME, null, config.getAppender("Lambda").getLayout(), true,
                Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                lines.add(new String(getLayout().toByteArray(event), StandardCharsets.UTF_8).strip());
            }
        };
        appender.start();
        config.getRootLogger().addAppender(appender, Level.ALL, null);
        context.updateLoggers();
    }

    /** The lines written so far, in order, each one JSON object. */
    public List<String> lines() {
        return List.copyOf(lines);
    }

    /** Removes the appender. */
    @Override
    public void close() {
        context.getConfiguration().getRootLogger().removeAppender(NAME);
        context.updateLoggers();
    }
}
