package dev.richter.common.model;

/**
 * One leg as an item of the leg Map (one child execution).
 *
 * @param legIndex 0-based
 * @param startMs  epoch ms of the first due time the leg owns
 * @param endMs    epoch ms where its due times end (exclusive); the monitor loop of the leg stops there
 * @param launchAt when the leg's workers are launched (ISO-8601 UTC, the Wait state's {@code TimestampPath}):
 *                 {@link Quotas#workerLeadMs()} before {@code startMs}, or at once for the first leg
 * @param startAt  when the leg's monitor loop starts (ISO-8601 UTC): at once for the first leg, else {@code startMs}
 *                 (when the previous leg's loop stops)
 * @param last     true for the step's last leg
 */
public record LegItem(int legIndex, long startMs, long endMs, String launchAt, String startAt, boolean last) {}
