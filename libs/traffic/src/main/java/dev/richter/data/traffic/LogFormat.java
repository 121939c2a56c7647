package dev.richter.data.traffic;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A line grammar of an access log, built from an nginx {@code log_format} template
 * (nginx docs, ngx_http_log_module: {@code log_format name [escape=default|json|none] string ...;}, variables
 * {@code $name} or {@code ${name}}).
 *
 * <p>A variable right after a {@code "} reads a quoted value (escapes {@code \"}, {@code \\}, {@code \xHH} allowed
 * inside), after a {@code [} everything up to {@code ]}, anywhere else one run of non-blank characters. Literal text
 * must match as written (runs of blanks match one or more blanks).
 *
 * @param name      the format's name, e.g. {@code combined} or the directive's name
 * @param template  the format string (the directive's quoted strings joined)
 * @param variables the variable names in order, without {@code $}
 * @param pattern   the compiled line grammar, one group per variable
 */
public record LogFormat(String name, String template, List<String> variables, Pattern pattern) {
    private static final Pattern VARIABLE = Pattern.compile("\\$(?:\\{([A-Za-z0-9_]+)}|([A-Za-z0-9_]+))");
    /**
     * The upstream module's variables that hold one value per upstream server tried, "separated by commas and colons
     * like addresses in $upstream_addr" (https://nginx.org/en/docs/http/ngx_http_upstream_module.html#variables):
     * {@code 0.002, 0.010 : 0.030}.
     */
    static final Set<String> MULTI_VALUE = Set.of("upstream_addr", "upstream_bytes_received", "upstream_bytes_sent",
            "upstream_connect_time", "upstream_header_time", "upstream_response_length", "upstream_response_time",
            "upstream_status");
    private static final Pattern QUOTED = Pattern.compile("'((?:[^'\\\\]|\\\\.)*)'|\"((?:[^\"\\\\]|\\\\.)*)\"");
    /** nginx's predefined {@code combined} format, also Apache's {@code combined} ({@code %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-agent}i"}). */
    public static final LogFormat COMBINED = lenient("combined",
            "$remote_addr $remote_ident $remote_user [$time_local] \"$request\" $status $body_bytes_sent \"$http_referer\" \"$http_user_agent\"");
    /** Apache's Common Log Format ({@code %h %l %u %t "%r" %>s %b}). */
    public static final LogFormat COMMON = lenient("common",
            "$remote_addr $remote_ident $remote_user [$time_local] \"$request\" $status $body_bytes_sent");


    /**
     * The grammar of an nginx {@code log_format} directive, e.g.
     * {@code log_format api '$remote_addr [$time_local] "$request" $status "$http_user_agent"';}.
     * The text may also be the bare format string (with or without quotes).
     *
     * @throws TrafficFormatException ({@code logFormat}: reason) when it has no variable, or neither {@code $request}
     *                                nor {@code $request_method} with {@code $request_uri} or {@code $uri}
     */
    public static LogFormat parseDirective(String directive) {
        String text = directive.strip();
        String name = "custom";
        if (text.startsWith("log_format")) {
            text = text.substring("log_format".length()).strip();
            int space = indexOfBlank(text);
            if (space < 0) {
                throw new TrafficFormatException("logFormat", "log_format needs a name and a format string");
            }
            name = text.substring(0, space);
            text = text.substring(space).strip();
            if (text.startsWith("escape=")) {
                int s = indexOfBlank(text);
                text = s < 0 ? "" : text.substring(s).strip();
            }
        }
        if (text.endsWith(";")) {
            text = text.substring(0, text.length() - 1).strip();
        }
        String template;
        if (text.startsWith("'") || text.startsWith("\"")) {
            StringBuilder joined = new StringBuilder();
            Matcher m = QUOTED.matcher(text);
            int at = 0;
            while (m.find()) {
                if (!text.substring(at, m.start()).isBlank()) {
                    throw new TrafficFormatException("logFormat", "unquoted text between the format strings at character " + (at + 1));
                }
                String part = m.group(1) != null ? m.group(1) : m.group(2);
                joined.append(part.replace("\\'", "'").replace("\\\"", "\""));
                at = m.end();
            }
            if (!text.substring(at).isBlank()) {
                throw new TrafficFormatException("logFormat", "unterminated format string at character " + (at + 1));
            }
            template = joined.toString();
        } else {
            template = text;
        }
        LogFormat format = compile(name, template, true);
        var vars = format.variables();
        if (vars.isEmpty()) {
            throw new TrafficFormatException("logFormat", "the format has no $variable");
        }
        if (!vars.contains("request") && !(vars.contains("request_method") && (vars.contains("request_uri") || vars.contains("uri")))) {
            throw new TrafficFormatException("logFormat",
                    "the format logs no request: it needs $request, or $request_method with $request_uri or $uri");
        }
        return format;
    }

    /** A built-in format that tolerates text before it (a virtual host, a forwarded chain) and fields after it. */
    private static LogFormat lenient(String name, String template) {
        return compile(name, template, false);
    }

    private static LogFormat compile(String name, String template, boolean strict) {
        StringBuilder regex = new StringBuilder(strict ? "^" : "^(?:.*?\\s+)?");
        List<String> variables = new ArrayList<>();
        Matcher m = VARIABLE.matcher(template);
        int at = 0;
        while (m.find()) {
            String literal = template.substring(at, m.start());
            regex.append(literal(literal));
            char before = m.start() > 0 ? template.charAt(m.start() - 1) : ' ';
            String variable = m.group(1) != null ? m.group(1) : m.group(2);
            regex.append(switch (before) {
                case '"' -> "((?:[^\"\\\\]|\\\\.)*)";
                case '[' -> "([^\\]]*)";
                default -> MULTI_VALUE.contains(variable) ? "([^\\s,]*(?:(?:,\\s*|\\s+:\\s+)[^\\s,]+)*)" : "(\\S*)";
            });
            variables.add(variable);
            at = m.end();
        }
        regex.append(literal(template.substring(at)));
        regex.append(strict ? "\\s*$" : "(?:\\s+.*)?$");
        return new LogFormat(name, template, List.copyOf(variables), Pattern.compile(regex.toString()));
    }

    private static String literal(String text) {
        StringBuilder b = new StringBuilder();
        int i = 0;
        while (i < text.length()) {
            int j = i;
            while (j < text.length() && Character.isWhitespace(text.charAt(j))) {
                j++;
            }
            if (j > i) {
                b.append("\\s+");
                i = j;
                continue;
            }
            while (j < text.length() && !Character.isWhitespace(text.charAt(j))) {
                j++;
            }
            b.append(Pattern.quote(text.substring(i, j)));
            i = j;
        }
        return b.toString();
    }

    private static int indexOfBlank(String s) {
        for (int i = 0; i < s.length(); i++) {
            if (Character.isWhitespace(s.charAt(i))) {
                return i;
            }
        }
        return -1;
    }
}
