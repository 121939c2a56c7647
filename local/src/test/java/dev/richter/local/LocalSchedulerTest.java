package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.scheduler.SchedulerClient;
import software.amazon.awssdk.services.scheduler.model.ActionAfterCompletion;
import software.amazon.awssdk.services.scheduler.model.FlexibleTimeWindowMode;
import software.amazon.awssdk.services.scheduler.model.GetScheduleResponse;

/**
 * The local Scheduler through the AWS SDK's own {@link SchedulerClient} (restJson1, as plan-api sends it): one-time
 * {@code at()} schedules in their {@code ScheduleExpressionTimezone}, and what {@code GetSchedule} answers.
 */
class LocalSchedulerTest {
    private static final Path CORPUS = Path.of(System.getProperty("richter.corpus", "/work/shared/corpus"));
    /** AWS Scheduler User Guide, "Schedule types": a one-time schedule is {@code at(yyyy-mm-ddThh:mm:ss)}. */
    private static final Pattern AT = Pattern.compile("^at\\((\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})\\)$");
    private static final String TARGET = "arn:aws:lambda:us-east-1:123456789012:function:planned-start";
    private static final String ROLE = "arn:aws:iam::123456789012:role/scheduler";

    private final List<String> log = new ArrayList<>();
    private LambdaHost lambdas;
    private LocalScheduler scheduler;
    private SchedulerClient client;

    @BeforeEach
    void start() throws IOException {
        lambdas = new LambdaHost(SamTemplate.load(LocalAwsStack.rootFromEnv(), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS), log::add);
        scheduler = new LocalScheduler(lambdas, Set.of(), log::add);
        scheduler.start(0);
        client = SchedulerClient.builder().region(Region.US_EAST_1)
                .endpointOverride(URI.create("http://127.0.0.1:" + scheduler.port()))
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("local", "local")))
                .httpClientBuilder(UrlConnectionHttpClient.builder()).build();
    }

    @AfterEach
    void stop() {
        client.close();
        scheduler.close();
        lambdas.close();
    }

    private void create(String name, String expression, String timezone) {
        client.createSchedule(b -> b.name(name).scheduleExpression(expression).scheduleExpressionTimezone(timezone)
                .flexibleTimeWindow(w -> w.mode(FlexibleTimeWindowMode.OFF)).actionAfterCompletion(ActionAfterCompletion.NONE)
                .target(t -> t.arn(TARGET).roleArn(ROLE).input("{}")));
    }

    /** What GetSchedule answers, read as AWS would: a valid at() in the time zone it names; its instant. */
    private Instant answeredInstant(String name) {
        GetScheduleResponse got = client.getSchedule(b -> b.name(name));
        Matcher m = AT.matcher(got.scheduleExpression());
        assertTrue(m.matches(), "GetSchedule answers a valid at(yyyy-mm-ddThh:mm:ss): " + got.scheduleExpression());
        return LocalDateTime.parse(m.group(1)).atZone(ZoneId.of(got.scheduleExpressionTimezone())).toInstant();
    }

    /**
     * Corpus bug 51: London summer and winter and Kolkata (+05:30) at() schedules are due at their instants, the
     * Kolkata one runs about 3 s after it is created, and GetSchedule answers a valid at() (seconds included) naming
     * the same instant in the zone it answers, which CreateSchedule takes back.
     */
    @Test
    void bug51AtSchedulesInTheirTimeZoneAndGetScheduleAnswersAValidAt() throws IOException, InterruptedException {
        JsonNode cases = Json.MAPPER.readTree(Files.readAllBytes(CORPUS.resolve("bugs/51-scheduler-at-timezone.json")));
        for (JsonNode c : cases.get("schedules")) {
            String name = c.get("Name").asText();
            String zone = c.get("ScheduleExpressionTimezone").asText();
            Instant expected;
            String expression;
            long createdMs = System.currentTimeMillis();
            if (c.get("ScheduleExpression").asText().contains("<")) {
                expected = Instant.ofEpochMilli(createdMs).plusSeconds(3).truncatedTo(ChronoUnit.SECONDS).plusSeconds(1);
                expression = "at(" + DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(expected.atZone(ZoneId.of(zone)).toLocalDateTime()) + ")";
            } else {
                expected = Instant.parse(c.get("expectedInstant").asText());
                expression = c.get("ScheduleExpression").asText();
            }
            create(name, expression, zone);
            assertEquals(expected, scheduler.schedule("default", name).orElseThrow().at(), name);
            assertEquals(expected, answeredInstant(name), name);
            GetScheduleResponse got = client.getSchedule(b -> b.name(name));
            create(name + "-again", got.scheduleExpression(), got.scheduleExpressionTimezone());
            assertEquals(expected, scheduler.schedule("default", name + "-again").orElseThrow().at(), name + ": the answer taken back");
        }
        Instant kolkata = scheduler.schedule("default", "soon-kolkata").orElseThrow().at();
        long deadline = System.currentTimeMillis() + 10_000;
        while (scheduler.fired().stream().noneMatch(f -> f.schedule().name().equals("soon-kolkata")) && System.currentTimeMillis() < deadline) {
            Thread.sleep(50);
        }
        LocalScheduler.Fired fired = scheduler.fired().stream().filter(f -> f.schedule().name().equals("soon-kolkata")).findFirst().orElseThrow();
        assertTrue(fired.firedAtMs() >= kolkata.toEpochMilli() && fired.firedAtMs() < kolkata.toEpochMilli() + 1_000,
                "fired at " + Instant.ofEpochMilli(fired.firedAtMs()) + ", due " + kolkata);
    }

    /**
     * The kind of bug 51: an at() in any IANA zone is due at the instant its wall-clock time denotes there, the zone's
     * offset on that date (DST or not, half- and three-quarter-hour offsets), and GetSchedule answers it back as a
     * valid at() of the same instant. A wall-clock time a DST change skips is shifted later by the gap, one it repeats
     * is the earlier instant.
     */
    @ParameterizedTest
    @CsvSource({
            "at(2027-07-01T09:00:00), Europe/London, 2027-07-01T08:00:00Z",
            "at(2027-01-15T09:00:00), Europe/London, 2027-01-15T09:00:00Z",
            "at(2027-03-28T00:59:59), Europe/London, 2027-03-28T00:59:59Z",
            "at(2027-03-28T02:00:00), Europe/London, 2027-03-28T01:00:00Z",
            "at(2027-03-28T01:30:00), Europe/London, 2027-03-28T01:30:00Z",
            "at(2027-10-31T01:30:00), Europe/London, 2027-10-31T00:30:00Z",
            "at(2027-10-31T02:00:00), Europe/London, 2027-10-31T02:00:00Z",
            "at(2027-01-15T09:00:00), Asia/Kolkata, 2027-01-15T03:30:00Z",
            "at(2027-01-15T00:10:00), Asia/Kolkata, 2027-01-14T18:40:00Z",
            "at(2027-01-15T09:00:00), Asia/Kathmandu, 2027-01-15T03:15:00Z",
            "at(2027-01-15T09:00:00), Australia/Adelaide, 2027-01-14T22:30:00Z",
            "at(2027-07-15T09:00:00), Australia/Adelaide, 2027-07-14T23:30:00Z",
            "at(2027-01-15T09:00:00), Australia/Lord_Howe, 2027-01-14T22:00:00Z",
            "at(2027-07-15T09:00:00), Australia/Lord_Howe, 2027-07-14T22:30:00Z",
            "at(2027-07-15T09:00:00), America/St_Johns, 2027-07-15T11:30:00Z",
            "at(2027-03-14T02:30:00), America/New_York, 2027-03-14T07:30:00Z",
            "at(2027-12-31T23:59:59), Pacific/Kiritimati, 2027-12-31T09:59:59Z",
            "at(2027-12-31T23:59:59), UTC, 2027-12-31T23:59:59Z"})
    void anAtIsDueAtTheInstantItsLocalTimeDenotesInItsZone(String expression, String zone, String instant) {
        create("s", expression, zone);
        assertEquals(Instant.parse(instant), scheduler.schedule("default", "s").orElseThrow().at());
        assertEquals(Instant.parse(instant), answeredInstant("s"));
        GetScheduleResponse got = client.getSchedule(b -> b.name("s"));
        assertEquals(expression, got.scheduleExpression());
        assertEquals(zone, got.scheduleExpressionTimezone());
    }
}
