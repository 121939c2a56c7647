package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Least privilege, both ways: compares the AWS calls each principal made (the recording {@link IamEnforcement} writes
 * while the integration tests run) with what {@code template.yaml} grants it.
 * <ul>
 *   <li>missing: a recorded call the template's policies do not allow (re-evaluated against the template given here,
 *       not the recorded decision, so a test's edited template does not count);</li>
 *   <li>unused: per Allow statement (a SAM policy template or an inline statement), the granted actions no recorded
 *       call of that principal used on that statement's resources.</li>
 * </ul>
 * A grant is only "unused" for the code paths the recording covers: read the report of a whole IT suite's recording.
 *
 * <p>{@code LeastPrivilegeIT} runs it after every other IT of a failsafe run (local/target/iam-calls.jsonl →
 * local/target/iam-least-privilege.txt). By hand: {@code LeastPrivilege <repository root> <recording.jsonl> <report.txt>}
 * writes the report, prints its summary, and exits 1 when a call is missing a permission (with IAM on such a call
 * already failed its test; with IAM off it is found here). Without a recording it prints nothing and exits 0.
 */
public final class LeastPrivilege {
    private LeastPrivilege() {}

    /** One recorded call. */
    public record Call(String principal, String action, String resource) {}

    /**
     * Granted actions of one statement that no call used.
     *
     * @param principal the principal's logical id
     * @param source    the statement's place in the template ({@code ReportFunction.Policies[8] S3WritePolicy})
     * @param used      the statement's actions some call used
     * @param unused    the statement's actions no call used
     * @param resources the statement's resource patterns
     */
    public record Unused(String principal, String source, Set<String> used, Set<String> unused, List<String> resources) {}

    /** The comparison: calls the template refuses, and grants no call used. */
    public record Comparison(List<Call> missing, List<Unused> unused) {}

    /** Reads a recording: one {@code {"principal","action","resource"}} object per line. */
    public static List<Call> read(Path recording) throws IOException {
        List<Call> out = new ArrayList<>();
        for (String line : Files.readAllLines(recording)) {
            if (line.isBlank()) {
                continue;
            }
            JsonNode n = Json.read(line, JsonNode.class);
            out.add(new Call(n.path("principal").asText(), n.path("action").asText(), n.path("resource").asText()));
        }
        return out.stream().distinct().toList();
    }

    /**
     * The condition keys a recorded call carried: the local stack hands a role over only in a Scheduler
     * {@code CreateSchedule}/{@code UpdateSchedule} ({@link IamEnforcement}), so its {@code iam:PassRole} was passed to
     * {@code scheduler.amazonaws.com}; no other call carries keys.
     */
    static Map<String, String> context(Call c) {
        return c.action().equals("iam:PassRole") ? Map.of("iam:PassedToService", "scheduler.amazonaws.com") : Map.of();
    }

    /** Compares {@code calls} with {@code policies} (see the class comment); calls of unknown principals are missing. */
    public static Comparison compare(IamPolicies policies, List<Call> calls) {
        List<Call> missing = new ArrayList<>();
        for (Call c : calls) {
            if (!policies.principals().containsKey(c.principal())
                    || policies.decide(c.principal(), c.action(), c.resource(), context(c)) != IamPolicies.AccessDecision.ALLOWED) {
                missing.add(c);
            }
        }
        List<Unused> unused = new ArrayList<>();
        for (IamPolicies.Principal p : policies.principals().values()) {
            List<Call> mine = calls.stream().filter(c -> c.principal().equals(p.logicalId())).toList();
            for (IamPolicies.Statement s : p.statements()) {
                if (s.effect() != IamPolicies.Effect.ALLOW || s.notAction() || s.notResource()) {
                    continue;
                }
                Set<String> used = new LinkedHashSet<>();
                Set<String> idle = new LinkedHashSet<>();
                for (String action : s.actions()) {
                    boolean hit = mine.stream().anyMatch(c -> IamPolicies.wildcard(action, c.action(), true)
                            && s.resources().stream().anyMatch(r -> IamPolicies.wildcard(r, c.resource(), false)));
                    (hit ? used : idle).add(action);
                }
                if (!idle.isEmpty()) {
                    unused.add(new Unused(p.logicalId(), s.source(), used, idle, s.resources()));
                }
            }
        }
        return new Comparison(missing, unused);
    }

    /** The report's text: missing calls first, then each statement's unused actions. */
    public static String report(Comparison c, int calls) {
        StringBuilder sb = new StringBuilder();
        sb.append("least privilege over ").append(calls).append(" recorded call(s)\n");
        sb.append("missing permissions: ").append(c.missing().size()).append('\n');
        c.missing().forEach(m -> sb.append("  MISSING ").append(m.principal()).append(' ').append(m.action()).append(" on ")
                .append(m.resource()).append('\n'));
        List<Unused> idle = c.unused().stream().filter(u -> u.used().isEmpty()).toList();
        sb.append("statements no recorded call used (remove them, or name the code path that uses them): ").append(idle.size()).append('\n');
        idle.forEach(u -> sb.append("  UNUSED ").append(u.source()).append(" on ").append(u.resources()).append('\n'));
        Map<String, List<Unused>> byPrincipal = new LinkedHashMap<>();
        c.unused().forEach(u -> byPrincipal.computeIfAbsent(u.principal(), k -> new ArrayList<>()).add(u));
        sb.append("statements with actions no recorded call used: ").append(c.unused().size()).append('\n');
        byPrincipal.forEach((p, list) -> {
            sb.append("  ").append(p).append('\n');
            for (Unused u : list) {
                sb.append("    ").append(u.source()).append(" on ").append(u.resources()).append(u.used().isEmpty() ? ": NOTHING used" : "")
                        .append("\n      unused: ").append(u.unused()).append(u.used().isEmpty() ? "" : "\n      used:   " + u.used())
                        .append('\n');
            }
        });
        return sb.toString();
    }

    /**
     * {@code <root> <recording.jsonl> <report.txt>}: see the class comment.
     *
     * @throws IOException when the template or the recording cannot be read, or the report not written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            System.err.println("usage: LeastPrivilege <repository root> <recording.jsonl> <report.txt>");
            System.exit(2);
        }
        Path recording = Path.of(args[1]);
        if (!Files.exists(recording)) {
            return;
        }
        IamPolicies policies = IamPolicies.of(SamTemplate.load(Path.of(args[0]), LocalAwsStack.LOCAL_PARAMETER_DEFAULTS));
        List<Call> calls = read(recording);
        Comparison c = compare(policies, calls);
        String text = report(c, calls.size());
        Files.writeString(Path.of(args[2]), text);
        System.out.println("IAM least privilege: " + c.missing().size() + " missing permission(s), " + c.unused().size()
                + " statement(s) with unused actions; report: " + args[2]);
        if (!c.missing().isEmpty()) {
            System.out.print(text);
            System.exit(1);
        }
    }
}
