package dev.richter.decider;

import java.util.List;

/** Where the team's CloudWatch alarms are kept between their state changes and the decision rounds. */
public interface TeamAlarmRepository {
    /** No alarms (teams without CloudWatch, tests). */
    TeamAlarmRepository NONE = new TeamAlarmRepository() {
        @Override
        public void save(TeamAlarm alarm) {}

        @Override
        public List<TeamAlarm> alarms(String teamId) {
            return List.of();
        }
    };

    /** Stores (replaces) the alarm's last state for its team. */
    void save(TeamAlarm alarm);

    /** The team's alarms, each in its last state. */
    List<TeamAlarm> alarms(String teamId);
}
