package dev.richter.data.traffic;

/**
 * A part of the input that could not be read, the import going on without it.
 *
 * @param position where: {@code <file>:<line>} for access logs, {@code <file>:<JSON path>} for HAR
 *                 (e.g. {@code shop.har:$.log.entries[3].request.url})
 * @param reason   what rule it broke, in words
 */
public record ImportProblem(String position, String reason) {
    @Override
    public String toString() {
        return position + ": " + reason;
    }
}
