package dev.richter.agent.isolation;

import java.util.regex.Pattern;

/**
 * The statements that JDBC drivers, connection pools and ORMs issue on their own and that change no table: a marked
 * one of these runs as it is, without being parsed. Recognised by their whole text (case-insensitive, surrounding
 * blanks, comments before it and one trailing {@code ;} ignored), per dialect:
 * <ul>
 *   <li>transaction control, all dialects: {@code BEGIN}, {@code START TRANSACTION}, {@code COMMIT}, {@code
 *       ROLLBACK} (also {@code TO SAVEPOINT}), {@code SAVEPOINT}, {@code RELEASE SAVEPOINT}, {@code SET TRANSACTION},
 *       {@code SET SESSION CHARACTERISTICS AS TRANSACTION};</li>
 *   <li>session settings: {@code SET name = value} / {@code SET name TO value} / {@code SET NAMES} (PostgreSQL's
 *       pgjdbc sends {@code SET extra_float_digits = 3} and {@code SET application_name = ...}; MySQL Connector/J and
 *       MariaDB send {@code SET autocommit=1}, {@code SET NAMES utf8mb4}, {@code SET character_set_results = NULL}),
 *       {@code SET @@session.x = ...}, PostgreSQL's {@code DISCARD ALL} (what pools send on return), {@code RESET
 *       name}; except the settings that switch where unqualified tables resolve ({@code SET SCHEMA}, {@code
 *       search_path}, {@code CATALOG}), which {@link #switchesSchema} names, and server-wide ones ({@code SET
 *       GLOBAL}, {@code SET PERSIST}, {@code @@GLOBAL.x}), which are not the session's;</li>
 *   <li>schema and catalog lookups: HSQLDB's {@code CALL CURRENT_SCHEMA} / {@code CALL CURRENT_CATALOG} / {@code CALL
 *       DATABASE()} / {@code CALL USER()} (what its {@code Connection.getSchema()} runs), Derby's {@code VALUES
 *       CURRENT SCHEMA}, PostgreSQL's {@code SHOW name}, MySQL's {@code SHOW VARIABLES ...}, {@code SHOW WARNINGS},
 *       {@code SHOW SESSION STATUS ...};</li>
 *   <li>validation queries need nothing here: {@code SELECT 1}, {@code /* ping *&#47; SELECT 1}, {@code SELECT 1
 *       FROM DUAL}, {@code VALUES 1}, {@code SELECT current_schema()} parse as reads of no table, which the shadow
 *       rule lets run.</li>
 * </ul>
 * Sequence calls ({@code nextval('s')}, {@code NEXT VALUE FOR s}) are decided by {@link SqlShadowPolicy} as reads:
 * advancing a sequence writes no row, production sequences have gaps by design (every rolled-back insert leaves
 * one), and a value a marked row takes is one production never takes again, so no production row is changed or
 * collided with. HSQLDB's {@code CALL NEXT VALUE FOR s} is the same call and is recognised here.
 */
final class DriverStatements {
    private static final Pattern LEADING_COMMENTS = Pattern.compile("^(\\s*(/\\*.*?\\*/|--[^\\n]*\\n))*\\s*",
            Pattern.DOTALL);
    private static final Pattern SIDE_EFFECT_FREE = Pattern.compile("(?i)("
            + "BEGIN( WORK| TRANSACTION)?|START TRANSACTION( [A-Z ,]+)?|COMMIT( WORK)?|ROLLBACK( WORK)?"
            + "|ROLLBACK( WORK)? TO( SAVEPOINT)? \\w+|SAVEPOINT \\w+|RELEASE( SAVEPOINT)? \\w+"
            + "|SET( SESSION| LOCAL)? TRANSACTION [A-Z ,]+|SET SESSION CHARACTERISTICS AS TRANSACTION [A-Z ,]+"
            + "|SET( SESSION| LOCAL)? (@@(SESSION\\.)?)?(?!GLOBAL\\b|PERSIST)[A-Za-z_][\\w.]*\\s*(=|TO)\\s*[^;]*"
            + "|SET NAMES [^;]+|SET CHARACTER SET [^;]+|DISCARD ALL|RESET \\w+"
            + "|CALL (CURRENT_SCHEMA|CURRENT_CATALOG|CURRENT_USER|DATABASE\\(\\)|USER\\(\\)|SCHEMA\\(\\))"
            + "|CALL NEXT VALUE FOR [\\w.\"]+|VALUES CURRENT SCHEMA"
            + "|SHOW( SESSION)? (VARIABLES|STATUS)( [^;]*)?|SHOW WARNINGS( [^;]*)?|SHOW \\w+"
            + ")");
    private static final Pattern SERVER_WIDE = Pattern.compile("(?i)^SET\\b.*\\b(GLOBAL|PERSIST|PERSIST_ONLY)\\b");
    private static final Pattern SCHEMA_SWITCH = Pattern.compile("(?i)(SET( SESSION| LOCAL)? (SCHEMA|CATALOG|"
            + "SEARCH_PATH|CURRENT_SCHEMA|CURRENT SCHEMA)\\b.*|USE \\S+)", Pattern.DOTALL);

    private DriverStatements() {}

    /** True when {@code sql} is one of the statements above that change no table. */
    static boolean sideEffectFree(String sql) {
        String s = body(sql);
        return !switchesSchema(sql) && !SERVER_WIDE.matcher(s).find() && SIDE_EFFECT_FREE.matcher(s).matches();
    }

    /**
     * True when {@code sql} switches where the connection's unqualified tables resolve: {@code SET SCHEMA}, {@code
     * SET search_path}, {@code SET CATALOG}, MySQL's {@code USE db}.
     */
    static boolean switchesSchema(String sql) {
        return SCHEMA_SWITCH.matcher(body(sql)).matches();
    }

    /** {@code sql} without the comments before it, surrounding blanks and one trailing {@code ;}. */
    private static String body(String sql) {
        String s = LEADING_COMMENTS.matcher(sql).replaceFirst("").trim();
        if (s.endsWith(";")) {
            s = s.substring(0, s.length() - 1).trim();
        }
        return s.replaceAll("\\s+", " ");
    }
}
