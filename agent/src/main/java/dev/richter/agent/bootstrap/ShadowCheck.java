package dev.richter.agent.bootstrap;

import java.util.Objects;

/**
 * The pre-check of one {@code kind: table} shadow on the service's real database ({@code
 * dev.richter.agent.jdbc.ShadowPreCheck}), as the JDBC helper hands it to {@link IsolationGuard#recordShadowChecks}. A
 * value: equal to another with the same components.
 *
 * @param table   the production table, as the document names it (lower case)
 * @param shadow  its shadow table, as the document names it
 * @param outcome what the check found
 * @param reason  why it failed, naming the column or the database's error; for {@link Outcome#ABSENT} where the
 *                production table was looked for; {@code ""} when it passed
 */
public final class ShadowCheck {
    private final String table;
    private final String shadow;
    private final Outcome outcome;
    private final String reason;

    public ShadowCheck(String table, String shadow, Outcome outcome, String reason) {
        this.table = table;
        this.shadow = shadow;
        this.outcome = outcome;
        this.reason = reason;
    }

    public String table() {
        return table;
    }

    public String shadow() {
        return shadow;
    }

    public Outcome outcome() {
        return outcome;
    }

    public String reason() {
        return reason;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof ShadowCheck)) {
            return false;
        }
        ShadowCheck c = (ShadowCheck) o;
        return Objects.equals(table, c.table) && Objects.equals(shadow, c.shadow) && outcome == c.outcome
                && Objects.equals(reason, c.reason);
    }

    @Override
    public int hashCode() {
        return Objects.hash(table, shadow, outcome, reason);
    }

    @Override
    public String toString() {
        return "ShadowCheck[table=" + table + ", shadow=" + shadow + ", outcome=" + outcome + ", reason=" + reason
                + "]";
    }

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
