package dev.richter.decider;

import dev.richter.common.model.EvidenceSources;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The CloudWatch alarm state change use case (the {@code AlarmStateChangeRule} target, DESIGN.md §4 "The team's own
 * evidence"): which teams' CloudWatch sources choose the alarm (its name starts with the source's
 * {@code alarmNamePrefix}, or it carries every tag of the source's {@code alarmTags}), and which of their modules it is
 * about (the alarm's tag named by {@code moduleTag}, else its metric's dimension of that name). An alarm no source
 * chooses, or one without a module, is ignored.
 */
public final class AlarmStates {
    private AlarmStates() {}

    /**
     * The alarm's state for each team that chose it.
     *
     * @param event   the state change
     * @param sources every team's evidence sources (teams without a CloudWatch source are skipped)
     */
    public static List<TeamAlarm> of(CloudWatchAlarmEvent event, List<EvidenceSources> sources) {
        List<TeamAlarm> out = new ArrayList<>();
        for (EvidenceSources s : sources) {
            EvidenceSources.CloudWatchSource cw = s.cloudwatch();
            if (cw == null || !chooses(cw, event)) continue;
            moduleOf(cw, event).ifPresent(module -> out.add(new TeamAlarm(s.teamId(), event.alarmName(), module,
                    event.state(), event.changedAtMs(), event.reason())));
        }
        return out;
    }

    static boolean chooses(EvidenceSources.CloudWatchSource cw, CloudWatchAlarmEvent e) {
        boolean byPrefix = cw.alarmNamePrefix() != null && !cw.alarmNamePrefix().isEmpty()
                && e.alarmName().startsWith(cw.alarmNamePrefix());
        boolean byTags = !cw.alarmTags().isEmpty()
                && cw.alarmTags().entrySet().stream().allMatch(t -> t.getValue().equals(e.tags().get(t.getKey())));
        return byPrefix || byTags;
    }

    static Optional<String> moduleOf(EvidenceSources.CloudWatchSource cw, CloudWatchAlarmEvent e) {
        String m = e.tags().getOrDefault(cw.moduleTag(), e.dimensions().get(cw.moduleTag()));
        return m == null || m.isBlank() ? Optional.empty() : Optional.of(m);
    }
}
