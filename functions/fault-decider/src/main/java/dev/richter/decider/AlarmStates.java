package dev.richter.decider;

import dev.richter.common.model.EvidenceSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The CloudWatch alarm state change use case (the {@code AlarmStateChangeRule} target, DESIGN.md §4 "The team's own
 * evidence"): which teams' CloudWatch sources choose the alarm (its name starts with the source's
 * {@code alarmNamePrefix}, or it carries every tag of the source's {@code alarmTags}), and which of their modules it is
 * about: the alarm's tag named by {@code moduleTag}, else the dimension of that name its metric queries carry (every
 * query that carries it naming the same module; queries without it say nothing: a metric-math alarm's expression has
 * no dimensions, its metric queries do, corpus bug 52). An alarm no source chooses is ignored; one a team chose whose
 * module cannot be told (no tag, and no query with the dimension or queries naming different modules; a composite
 * alarm without the tag) is listed with the reason ({@link Reading#unresolved}), never dropped silently.
 */
public final class AlarmStates {
    private AlarmStates() {}

    /**
     * What one state change is for the teams.
     *
     * @param chosen     the alarm's state for each team that chose it and whose module it names
     * @param unresolved one line per team that chose it but whose module it does not name, with the reason, e.g.
     *                   {@code team demo: alarm shop-x has no module: its metric queries name different modules by
     *                   dimension 'service' (order, payment): tag the alarm 'service' to name one}
     */
    public record Reading(List<TeamAlarm> chosen, List<String> unresolved) {
        public Reading {
            chosen = List.copyOf(chosen);
            unresolved = List.copyOf(unresolved);
        }
    }

    /**
     * The alarm's state for each team that chose it, and the teams for which it names no module.
     *
     * @param event   the state change
     * @param sources every team's evidence sources (teams without a CloudWatch source are skipped)
     */
    public static Reading read(CloudWatchAlarmEvent event, List<EvidenceSources> sources) {
        List<TeamAlarm> chosen = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        for (EvidenceSources s : sources) {
            EvidenceSources.CloudWatchSource cw = s.cloudwatch();
            if (cw == null || !chooses(cw, event)) continue;
            String[] why = new String[1];
            Optional<String> module = moduleOf(cw, event, why);
            if (module.isPresent()) {
                chosen.add(new TeamAlarm(s.teamId(), event.alarmName(), module.get(), event.state(), event.changedAtMs(), event.reason()));
            } else {
                unresolved.add("team " + s.teamId() + ": alarm " + event.alarmName() + " has no module: " + why[0]);
            }
        }
        return new Reading(chosen, unresolved);
    }

    /**
     * The alarm's state for each team that chose it.
     *
     * @param event   the state change
     * @param sources every team's evidence sources (teams without a CloudWatch source are skipped)
     */
    public static List<TeamAlarm> of(CloudWatchAlarmEvent event, List<EvidenceSources> sources) {
        return read(event, sources).chosen();
    }

    static boolean chooses(EvidenceSources.CloudWatchSource cw, CloudWatchAlarmEvent e) {
        boolean byPrefix = cw.alarmNamePrefix() != null && !cw.alarmNamePrefix().isEmpty()
                && e.alarmName().startsWith(cw.alarmNamePrefix());
        boolean byTags = !cw.alarmTags().isEmpty()
                && cw.alarmTags().entrySet().stream().allMatch(t -> t.getValue().equals(e.tags().get(t.getKey())));
        return byPrefix || byTags;
    }

    /**
     * The module the alarm is about for {@code cw}, or empty with the reason in {@code why[0]}.
     */
    static Optional<String> moduleOf(EvidenceSources.CloudWatchSource cw, CloudWatchAlarmEvent e, String[] why) {
        String key = cw.moduleTag();
        String tagged = e.tags().get(key);
        if (tagged != null && !tagged.isBlank()) {
            return Optional.of(tagged);
        }
        if (e.composite()) {
            why[0] = "no tag '" + key + "' (a composite alarm has no metric to take the module from)";
            return Optional.empty();
        }
        Set<String> named = new TreeSet<>();
        for (Map<String, String> dimensions : e.metricDimensions()) {
            String value = dimensions.get(key);
            if (value != null && !value.isBlank()) {
                named.add(value);
            }
        }
        if (named.size() == 1) {
            return Optional.of(named.iterator().next());
        }
        why[0] = named.isEmpty()
                ? "no tag '" + key + "' and none of its " + e.metricDimensions().size() + " metric queries has a dimension '" + key + "'"
                : "its metric queries name different modules by dimension '" + key + "' (" + String.join(", ", named)
                        + "): tag the alarm '" + key + "' to name one";
        return Optional.empty();
    }
}
