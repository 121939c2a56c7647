package dev.richter.decider;

/**
 * A CloudWatch alarm of a team's module as last seen (registry item {@code alarm#<alarmName>}, written by
 * {@link AlarmStates}, read by every decision round of the team's runs).
 *
 * @param teamId    the team whose CloudWatch source chose the alarm
 * @param alarmName the alarm
 * @param module    the module it is about (the alarm's module tag, else its metric's dimension of that name)
 * @param state     {@code OK}, {@code ALARM} or {@code INSUFFICIENT_DATA}
 * @param sinceMs   epoch ms of the change to {@code state}
 * @param reason    CloudWatch's reason of the change
 */
public record TeamAlarm(String teamId, String alarmName, String module, String state, long sinceMs, String reason) {}
