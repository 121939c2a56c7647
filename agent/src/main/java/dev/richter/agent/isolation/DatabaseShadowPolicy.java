package dev.richter.agent.isolation;

import dev.richter.agent.bootstrap.ExitDecision;
import dev.richter.agent.bootstrap.ShadowDecision;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The isolation's rule for a marked call's JDBC connection, shadow databases ({@code kind: schema}, production
 * database or schema name → shadow name):
 * <ul>
 *   <li>a connection opened while marked ({@code Driver.connect}, so {@code DriverManager.getConnection} too) has its
 *       URL's database replaced by the shadow: the last occurrence of the production name in the URL that follows
 *       {@code /}, {@code :} or {@code =} and ends the URL or is followed by {@code ;}, {@code ?} or {@code &} (so
 *       {@code jdbc:postgresql://db:5432/billing?ssl=true}, {@code jdbc:mysql://db/billing},
 *       {@code jdbc:h2:tcp://db/mem:billing;MODE=X}, {@code jdbc:sqlserver://db;databaseName=billing}, never the
 *       host); a URL naming no mapped database is opened as it is;</li>
 *   <li>a connection a marked call takes from a {@code DataSource} (a pool's connection, opened unmarked) is switched
 *       to the shadow when its schema, or else its catalog, is a mapped production one: {@link #connection} answers
 *       {@code schema=<shadow>} or {@code catalog=<shadow>} (the helper then verifies the switch took, and refuses the
 *       connection when the driver cannot switch it, e.g. PostgreSQL's catalog).</li>
 * </ul>
 * Names compare case-insensitively.
 */
public final class DatabaseShadowPolicy {
    private DatabaseShadowPolicy() {}

    /** The decision for a URL a marked call opens a connection with. */
    public static ShadowDecision url(String url, Shadows shadows) {
        String lower = url.toLowerCase(Locale.ROOT);
        for (String shadow : shadows.schemas().values()) {
            if (tokenAt(lower, shadow.toLowerCase(Locale.ROOT)) >= 0) {
                return new ShadowDecision(Optional.empty(), shadow, ExitDecision.PASS);
            }
        }
        for (Map.Entry<String, String> m : shadows.schemas().entrySet()) {
            int at = tokenAt(lower, m.getKey());
            if (at >= 0) {
                return ShadowDecision.shadow(url.substring(0, at) + m.getValue() + url.substring(at + m.getKey().length()),
                        m.getValue());
            }
        }
        return ShadowDecision.UNTOUCHED;
    }

    /** The decision for a connection a marked call took from a {@code DataSource}. */
    public static ShadowDecision connection(String catalog, String schema, Shadows shadows) {
        for (String name : new String[] {schema, catalog}) {
            if (!name.isEmpty() && shadows.isShadowSchema(name)) {
                return new ShadowDecision(Optional.empty(), name, ExitDecision.PASS);
            }
        }
        Optional<String> bySchema = schema.isEmpty() ? Optional.empty() : shadows.shadowSchema(schema);
        if (bySchema.isPresent()) {
            return ShadowDecision.shadow("schema=" + bySchema.get(), bySchema.get());
        }
        Optional<String> byCatalog = catalog.isEmpty() ? Optional.empty() : shadows.shadowSchema(catalog);
        return byCatalog.map(c -> ShadowDecision.shadow("catalog=" + c, c)).orElse(ShadowDecision.UNTOUCHED);
    }

    /** Where {@code name} last occurs in {@code url} as its database (see the class comment), or -1. */
    static int tokenAt(String url, String name) {
        for (int at = url.lastIndexOf(name); at > 0; at = url.lastIndexOf(name, at - 1)) {
            char before = url.charAt(at - 1);
            int end = at + name.length();
            char after = end < url.length() ? url.charAt(end) : ';';
            if ((before == '/' || before == ':' || before == '=') && (after == ';' || after == '?' || after == '&')) {
                return at;
            }
        }
        return -1;
    }
}
