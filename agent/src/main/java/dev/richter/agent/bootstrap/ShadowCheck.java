package dev.richter.agent.bootstrap;

/**
 * The pre-check of one {@code kind: table} shadow on the service's real database ({@code
 * dev.richter.agent.jdbc.ShadowPreCheck}), as the JDBC helper hands it to {@link IsolationGuard#recordShadowChecks}.
 *
 * @param table      the production table, as the document names it (lower case)
 * @param shadow     its shadow table, as the document names it
 * @param passed     the shadow exists, its columns equal the production table's (name, type, size, nullability, in
 *                   order), and it accepts a write
 * @param reason     why it failed, naming the column or the database's error; {@code ""} when it passed
 */
public record ShadowCheck(String table, String shadow, boolean passed, String reason) {}
