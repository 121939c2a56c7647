package dev.richter.decider;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import dev.richter.common.AwsClients;
import dev.richter.common.Json;
import dev.richter.common.Repositories;
import dev.richter.common.TableNames;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.Logger;

/**
 * Lambda entry of {@code AlarmStateChangeRule} (default bus, detail-type {@code CloudWatch Alarm State Change}): the
 * alarm's new state stored for every team whose CloudWatch source chooses it ({@link AlarmStates}), where the teams'
 * decision rounds read it. Answers {@code {"teams": n}}. A malformed event fails the invocation (EventBridge retries it
 * and the error is in the function's log), never a decision. An alarm a team chose that names none of its modules
 * ({@link AlarmStates.Reading#unresolved}) is logged at WARN with the reason and listed in the answer
 * ({@code {"teams": n, "unresolved": [...]}}).
 */
public final class AlarmStateHandler implements RequestStreamHandler {
    private static final Logger LOG = LogManager.getLogger(AlarmStateHandler.class);
    private final Repositories repositories;
    private final TeamAlarmRepository alarms;

    /** For Lambda: the registry table from the environment. */
    public AlarmStateHandler() {
        this(Repositories.fromEnv(), new DynamoTeamAlarmRepository(AwsClients.dynamoDb(), TableNames.fromEnv().registry()));
    }

    /** For tests. */
    public AlarmStateHandler(Repositories repositories, TeamAlarmRepository alarms) {
        this.repositories = repositories;
        this.alarms = alarms;
    }

    @Override
    public void handleRequest(InputStream in, OutputStream out, Context context) throws IOException {
        CloudWatchAlarmEvent event = CloudWatchAlarmEvent.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
        AlarmStates.Reading read = AlarmStates.read(event, repositories.allEvidenceSources());
        read.chosen().forEach(alarms::save);
        LOG.info("alarm {} {} -> {}: {} team(s)", event.alarmName(), event.previousState(), event.state(), read.chosen().size());
        read.unresolved().forEach(line -> LOG.warn("alarm not kept: {}", line));
        out.write(Json.write(Map.of("teams", read.chosen().size(), "unresolved", read.unresolved())).getBytes(StandardCharsets.UTF_8));
    }
}
