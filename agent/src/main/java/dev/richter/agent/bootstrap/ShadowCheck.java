package dev.richter.agent.bootstrap;

/**
 * The pre-check of one {@code kind: table} shadow on the service's real database ({@code
 * dev.richter.agent.jdbc.ShadowPreCheck}), as the JDBC helper hands it to {@link IsolationGuard#recordShadowChecks}.
 *
 * @param table   the production table, as the document names it (lower case)
 * @param shadow  its shadow table, as the document names it
 * @param outcome what the check found
 * @param reason  why it failed, naming the column or the database's error; for {@link Outcome#ABSENT} where the
 *                production table was looked for; {@code ""} when it passed
 */
public record ShadowCheck(String table, String shadow, Outcome outcome, String reason) {

    /** What the pre-check of one table shadow found. */
    public enum Outcome {
        /** The shadow exists, is a table, has the production table's columns (name, type, size, nullability, in order)
         *  and accepts a write. */
        PASS,
        /** The production table is here, and its shadow is missing, differs, or refuses a write. */
        FAIL,
        /** The production table is not in this database (a service with several databases): nothing to check here. */
        ABSENT
    }
}
