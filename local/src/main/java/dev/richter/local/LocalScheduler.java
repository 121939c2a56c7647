package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.richter.common.Json;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The local EventBridge Scheduler: answers the Scheduler API's {@code CreateSchedule} ({@code POST /schedules/{Name}}),
 * {@code GetSchedule} ({@code GET /schedules/{Name}?groupName=}) and {@code DeleteSchedule}
 * ({@code DELETE /schedules/{Name}?groupName=}) in its restJson1 shapes, as the SDK's {@code SchedulerClient} sends
 * them through {@code AWS_ENDPOINT_URL_SCHEDULER}, and runs one-time schedules ({@code at(yyyy-mm-ddThh:mm:ss)} in
 * {@code ScheduleExpressionTimezone}, UTC by default) at their second: the target (a Lambda function ARN of the
 * template) is invoked through {@link LambdaHost} with the target's {@code Input}, asynchronously as Scheduler does,
 * and the schedule is deleted after it ran when {@code ActionAfterCompletion} is {@code DELETE}.
 *
 * <p>An {@code at()} is a wall-clock time in {@code ScheduleExpressionTimezone} (an IANA zone; AWS Scheduler User
 * Guide, "Schedule types": "at(yyyy-mm-ddThh:mm:ss)" evaluated in the time zone you specify), so it is due at the
 * instant that local time denotes there, the zone's offset on that date included (Europe/London at 09:00 is 08:00Z in
 * summer, 09:00Z in winter; Asia/Kolkata is +05:30). A local time a DST change skips is read shifted later by the gap,
 * one it repeats as the earlier of the two (java.time's {@code ZonedDateTime} rule; AWS documents neither).
 * {@code GetSchedule} answers the expression and time zone as they were created, so the answer is itself a valid
 * {@code at()} naming the same instant (KensioSoftware/yulin#1343; corpus bug 51).
 *
 * <p>As strict as the API where Richter depends on it: the name ({@code [0-9a-zA-Z-_.]+}, 1..64), the group (one of the
 * template's {@code AWS::Scheduler::ScheduleGroup}s, or {@code default}), the expression, {@code FlexibleTimeWindow}
 * and the target's {@code Arn} and {@code RoleArn} are required ({@code ValidationException}, 400); a name taken in the
 * group is a {@code ConflictException} (409), an unknown one a {@code ResourceNotFoundException} (404). Only
 * {@code at()} expressions run here ({@code rate()} and {@code cron()} are refused). The role is kept on each schedule
 * ({@link Schedule#roleArn()}) but not checked here. Errors carry their type in {@code x-amzn-ErrorType}, as restJson1
 * clients read it.
 */
public final class LocalScheduler implements AutoCloseable {
    private static final Pattern PATH = Pattern.compile("^/schedules/([^/?]+)$");
    private static final Pattern NAME = Pattern.compile("^[0-9a-zA-Z\\-_.]{1,64}$");
    private static final Pattern AT = Pattern.compile("^at\\((\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2})\\)$");

    /**
     * One schedule as stored.
     *
     * @param name       its name
     * @param group      its group
     * @param at         when it runs
     * @param expression its {@code ScheduleExpression} as created, e.g. {@code at(2027-07-01T09:00:00)}
     * @param timezone   its {@code ScheduleExpressionTimezone} as created ({@code UTC} when none was given)
     * @param targetArn  the function it invokes
     * @param roleArn    the role it would run as on AWS
     * @param input      the target's input
     * @param deleteAfter whether it is deleted after it ran ({@code ActionAfterCompletion DELETE})
     */
    public record Schedule(String name, String group, Instant at, String expression, String timezone, String targetArn,
                           String roleArn, String input, boolean deleteAfter) {}

    /**
     * A run of a schedule: the target invoked asynchronously (Scheduler sees only that the invocation was accepted;
     * the function's own result goes to the log).
     *
     * @param schedule  the schedule
     * @param firedAtMs epoch ms the target was invoked
     */
    public record Fired(Schedule schedule, long firedAtMs) {}

    private final LambdaHost lambdas;
    private final Set<String> groups;
    private final Consumer<String> log;
    private final Map<String, Schedule> schedules = new ConcurrentHashMap<>();
    private final Map<String, ScheduledFuture<?>> timers = new ConcurrentHashMap<>();
    private final List<Fired> fired = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "local-scheduler");
        t.setDaemon(true);
        return t;
    });
    private HttpServer server;

    /**
     * @param lambdas the functions schedules invoke
     * @param groups  the schedule groups besides {@code default} (the template's, by local name)
     * @param log     one line per schedule run
     */
    LocalScheduler(LambdaHost lambdas, Set<String> groups, Consumer<String> log) {
        this.lambdas = lambdas;
        this.groups = Set.copyOf(groups);
        this.log = log;
    }

    /** Starts on loopback {@code port}. */
    public void start(int port) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 64);
        server.createContext("/", this::serve);
        server.start();
    }

    /** The schedule {@code name} of {@code group}, while it exists. */
    public Optional<Schedule> schedule(String group, String name) {
        return Optional.ofNullable(schedules.get(group + "/" + name));
    }

    /** Every schedule run so far, in order. */
    public List<Fired> fired() {
        return List.copyOf(fired);
    }

    private void serve(HttpExchange ex) throws IOException {
        try (ex) {
            Matcher m = PATH.matcher(ex.getRequestURI().getRawPath());
            Map<String, String> query = query(ex.getRequestURI().getRawQuery());
            if (!m.matches()) {
                answer(ex, 404, "UnknownOperationException", "no Scheduler operation " + ex.getRequestMethod() + " "
                        + ex.getRequestURI().getPath() + " (the local Scheduler serves CreateSchedule, GetSchedule, DeleteSchedule)");
                return;
            }
            String name = URLDecoder.decode(m.group(1), StandardCharsets.UTF_8);
            switch (ex.getRequestMethod()) {
                case "POST" -> create(ex, name, Json.MAPPER.readTree(ex.getRequestBody()));
                case "GET" -> get(ex, name, query.getOrDefault("groupName", "default"));
                case "DELETE" -> delete(ex, name, query.getOrDefault("groupName", "default"));
                default -> answer(ex, 405, "UnknownOperationException", "unsupported method " + ex.getRequestMethod());
            }
        }
    }

    private void create(HttpExchange ex, String name, JsonNode body) throws IOException {
        String group = body.path("GroupName").asText("default");
        List<String> problems = new ArrayList<>();
        if (!NAME.matcher(name).matches()) {
            problems.add("Name must match [0-9a-zA-Z-_.]+ and be 1 to 64 characters");
        }
        if (!group.equals("default") && !groups.contains(group)) {
            answer(ex, 404, "ResourceNotFoundException", "Schedule group " + group + " does not exist.");
            return;
        }
        if (!body.path("FlexibleTimeWindow").path("Mode").isTextual()) {
            problems.add("FlexibleTimeWindow.Mode is required");
        }
        String targetArn = body.path("Target").path("Arn").asText("");
        String roleArn = body.path("Target").path("RoleArn").asText("");
        if (targetArn.isEmpty()) {
            problems.add("Target.Arn is required");
        }
        if (roleArn.isEmpty()) {
            problems.add("Target.RoleArn is required");
        }
        Instant at = null;
        String expression = body.path("ScheduleExpression").asText("");
        String timezone = body.path("ScheduleExpressionTimezone").asText("UTC");
        Matcher am = AT.matcher(expression);
        if (!am.matches()) {
            problems.add("ScheduleExpression '" + expression + "': the local Scheduler runs at(yyyy-mm-ddThh:mm:ss) only");
        } else {
            try {
                at = due(am.group(1), timezone);
            } catch (java.time.DateTimeException e) {
                problems.add("ScheduleExpression '" + expression + "' or its timezone is invalid: " + e.getMessage());
            }
        }
        if (!problems.isEmpty()) {
            answer(ex, 400, "ValidationException", String.join("; ", problems));
            return;
        }
        Schedule s = new Schedule(name, group, at, expression, timezone, targetArn, roleArn, body.path("Target").path("Input").asText("{}"),
                "DELETE".equals(body.path("ActionAfterCompletion").asText("NONE")));
        String key = group + "/" + name;
        if (schedules.putIfAbsent(key, s) != null) {
            answer(ex, 409, "ConflictException", "Schedule " + name + " already exists in group " + group + ".");
            return;
        }
        long delayMs = Math.max(0, at.toEpochMilli() - System.currentTimeMillis());
        timers.put(key, timer.schedule(() -> fire(key), delayMs, TimeUnit.MILLISECONDS));
        json(ex, 200, Map.of("ScheduleArn", arn(group, name)));
    }

    private void fire(String key) {
        Schedule s = schedules.get(key);
        if (s == null) {
            return;
        }
        long now = System.currentTimeMillis();
        if (s.deleteAfter()) {
            schedules.remove(key);
            timers.remove(key);
        }
        fired.add(new Fired(s, now));
        // Scheduler invokes a Lambda target asynchronously (InvocationType Event): the invocation runs on its own thread
        Thread.ofPlatform().daemon().name("local-scheduler-target").start(() -> {
            LambdaHost.Invocation inv = lambdas.invoke(s.targetArn(), s.input().getBytes(StandardCharsets.UTF_8));
            String error = inv.functionError() == null && inv.status() == 200 ? null
                    : new String(inv.payload(), StandardCharsets.UTF_8);
            log.accept("scheduler: " + s.group() + "/" + s.name() + " due " + s.at() + " invoked " + s.targetArn()
                    + " at " + Instant.ofEpochMilli(now) + (error == null ? ": ok" : ": the function FAILED: " + error));
        });
    }

    private void get(HttpExchange ex, String name, String group) throws IOException {
        Schedule s = schedules.get(group + "/" + name);
        if (s == null) {
            answer(ex, 404, "ResourceNotFoundException", "Schedule " + name + " does not exist.");
            return;
        }
        Map<String, Object> target = new LinkedHashMap<>();
        target.put("Arn", s.targetArn());
        target.put("RoleArn", s.roleArn());
        target.put("Input", s.input());
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("Arn", arn(group, name));
        out.put("Name", name);
        out.put("GroupName", group);
        out.put("ScheduleExpression", s.expression());
        out.put("ScheduleExpressionTimezone", s.timezone());
        out.put("State", "ENABLED");
        out.put("ActionAfterCompletion", s.deleteAfter() ? "DELETE" : "NONE");
        out.put("FlexibleTimeWindow", Map.of("Mode", "OFF"));
        out.put("Target", target);
        json(ex, 200, out);
    }

    private void delete(HttpExchange ex, String name, String group) throws IOException {
        String key = group + "/" + name;
        if (schedules.remove(key) == null) {
            answer(ex, 404, "ResourceNotFoundException", "Schedule " + name + " does not exist.");
            return;
        }
        ScheduledFuture<?> t = timers.remove(key);
        if (t != null) {
            t.cancel(false);
        }
        json(ex, 200, Map.of());
    }

    /**
     * The instant a one-time schedule is due.
     *
     * @param localDateTime the {@code at()}'s {@code yyyy-mm-ddThh:mm:ss}
     * @param timezone      an IANA time zone, e.g. {@code Europe/London}
     * @throws java.time.DateTimeException for a date or time that does not exist in any year (e.g. the 30th of
     *                                     February) or an unknown zone
     */
    static Instant due(String localDateTime, String timezone) {
        return LocalDateTime.parse(localDateTime).atZone(ZoneId.of(timezone)).toInstant();
    }

    /** The loopback port it serves on, once started (the one asked for, or the one chosen for port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    private static String arn(String group, String name) {
        return "arn:aws:scheduler:" + SamTemplate.REGION + ":" + SamTemplate.ACCOUNT + ":schedule/" + group + "/" + name;
    }

    /** The fields of a query string or form body ({@code a=1&b=x%20y}), decoded; a repeated name keeps its last value. */
    static Map<String, String> query(String raw) {
        Map<String, String> out = new LinkedHashMap<>();
        if (raw == null || raw.isEmpty()) {
            return out;
        }
        for (String pair : raw.split("&")) {
            int eq = pair.indexOf('=');
            out.put(URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8),
                    eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
        }
        return out;
    }

    private static void answer(HttpExchange ex, int status, String type, String message) throws IOException {
        ex.getResponseHeaders().set("x-amzn-ErrorType", type);
        json(ex, status, Map.of("Message", message));
    }

    private static void json(HttpExchange ex, int status, Object body) throws IOException {
        byte[] bytes = Json.write(body).getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, bytes.length);
        ex.getResponseBody().write(bytes);
    }

    @Override
    public void close() {
        if (server != null) {
            server.stop(0);
        }
        timer.shutdownNow();
    }
}
