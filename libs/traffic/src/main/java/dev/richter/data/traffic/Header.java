package dev.richter.data.traffic;

/**
 * One request header as recorded, name in its recorded case.
 *
 * @param name  header name, e.g. {@code Content-Type}
 * @param value header value; a scrubbed value is a slot such as {@code {{slot:authorization}}} ({@link PiiScrubber})
 */
public record Header(String name, String value) {}
