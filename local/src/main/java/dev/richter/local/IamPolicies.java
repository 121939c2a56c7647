package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.common.Json;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The identity-based IAM policies {@code template.yaml} gives each principal, resolved to local ARNs, and AWS's
 * decision for one request: may principal P perform action A on resource R?
 *
 * <p>Principals, by logical id: every {@code AWS::Serverless::Function} and {@code AWS::Serverless::StateMachine}
 * (its {@code Policies}: SAM policy templates expanded by {@link SamPolicyTemplates}, and inline policy documents
 * {@code {Statement: [...]}}; or, with a {@code Role: {Fn::GetAtt: [<Role>, Arn]}}, that role's policies), every
 * {@code AWS::IAM::Role} (its inline {@code Policies[].PolicyDocument}), e.g. an EventBridge Scheduler role, and the
 * role SAM generates for each {@code ScheduleV2} event ({@code <Resource><Event>Role}). A
 * managed policy (a {@code Policies} string, {@code ManagedPolicyArns}) and a statement {@code Condition} are not
 * evaluated here: {@link #of} refuses them, naming where they are, rather than guess.
 *
 * <p>Evaluation follows AWS's policy evaluation logic for identity-based policies of one account
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_evaluation-logic.html): an explicit
 * {@code Deny} that matches wins over every {@code Allow}; else a matching {@code Allow} allows; else the request is
 * implicitly denied. A statement matches when its {@code Action} matches the action (or its {@code NotAction} does
 * not) and its {@code Resource} matches the resource ARN (or its {@code NotResource} does not). Wildcards as IAM
 * reads them (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_resource.html):
 * {@code *} any run of characters, {@code ?} one character, within and across ARN segments; actions compare
 * case-insensitively, resources case-sensitively. ARNs in the template ({@code Fn::Sub}, {@code Ref},
 * {@code Fn::GetAtt}) resolve with {@link SamTemplate}'s local names, account {@value SamTemplate#ACCOUNT} and
 * region {@value SamTemplate#REGION}; a {@code Ref} to a bucket resolves to {@link #localBucketName}.
 *
 * <p>Denials read as AWS writes them
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/troubleshoot_access-denied.html): {@code User:
 * arn:aws:sts::<account>:assumed-role/<role>/<session> is not authorized to perform: <action> on resource:
 * <arn> because no identity-based policy allows the <action> action}, or {@code ... with an explicit deny in an
 * identity-based policy}. The role of a principal is named as SAM names it ({@code <LogicalId>Role}), prefixed with the
 * stack name: {@code richter-<LogicalId>Role}.
 */
public final class IamPolicies {
    /** A statement's effect. */
    public enum Effect { ALLOW, DENY }

    /** AWS's answer to one request. */
    public enum AccessDecision { ALLOWED, EXPLICIT_DENY, IMPLICIT_DENY }

    /**
     * One resolved statement.
     *
     * @param effect      Allow or Deny
     * @param actions     action patterns ({@code dynamodb:Query}, {@code dynamodb:*}); those of {@code NotAction} when
     *                    {@code notAction}
     * @param notAction   true for a {@code NotAction} statement
     * @param resources   resource ARN patterns; those of {@code NotResource} when {@code notResource}
     * @param notResource true for a {@code NotResource} statement
     * @param source      where it comes from in the template ({@code PlanApiFunction.Policies[3] DynamoDBCrudPolicy})
     * @param conditions  its {@code Condition} block: operator ({@code StringEquals} or {@code StringLike}) → context
     *                    key → values; empty when it has none
     */
    public record Statement(Effect effect, List<String> actions, boolean notAction, List<String> resources,
                            boolean notResource, String source, Map<String, Map<String, List<String>>> conditions) {
        /** The condition operators the local stack evaluates (IAM User Guide, "IAM JSON policy elements: Condition operators"). */
        static final Set<String> OPERATORS = Set.of("StringEquals", "StringLike");

        public Statement {
            actions = List.copyOf(actions);
            resources = List.copyOf(resources);
            conditions = conditions == null ? Map.of() : Map.copyOf(conditions);
        }

        /** A statement with no {@code Condition}. */
        public Statement(Effect effect, List<String> actions, boolean notAction, List<String> resources, boolean notResource,
                         String source) {
            this(effect, actions, notAction, resources, notResource, source, Map.of());
        }

        /** True when this statement covers {@code action} on {@code resource} in a request with no context keys. */
        public boolean matches(String action, String resource) {
            return matches(action, resource, Map.of());
        }

        /**
         * True when this statement covers {@code action} on {@code resource} and its conditions hold for the request's
         * {@code context} keys. As IAM evaluates them, every operator and every key must hold, a key holds when the
         * request's value equals ({@code StringEquals}) or matches with {@code *}/{@code ?} ({@code StringLike}) any of
         * its values, and a key the request does not carry does not hold.
         */
        public boolean matches(String action, String resource, Map<String, String> context) {
            boolean a = actions.stream().anyMatch(p -> wildcard(p, action, true));
            boolean r = resources.stream().anyMatch(p -> wildcard(p, resource, false));
            if ((notAction == a) || (notResource == r)) {
                return false;
            }
            for (Map.Entry<String, Map<String, List<String>>> op : conditions.entrySet()) {
                for (Map.Entry<String, List<String>> key : op.getValue().entrySet()) {
                    String value = context.get(key.getKey());
                    boolean like = op.getKey().equals("StringLike");
                    if (value == null || key.getValue().stream().noneMatch(v -> like ? wildcard(v, value, false) : v.equals(value))) {
                        return false;
                    }
                }
            }
            return true;
        }
    }

    /**
     * One principal: a function, state machine or role of the template.
     *
     * @param logicalId  its logical id
     * @param roleName   the local name of its role ({@code richter-<LogicalId>Role}, or the named role's)
     * @param statements its statements, in template order
     */
    public record Principal(String logicalId, String roleName, List<Statement> statements) {
        public Principal {
            statements = List.copyOf(statements);
        }

        /** The role's ARN, {@code arn:aws:iam::<account>:role/<roleName>}. */
        public String roleArn() {
            return "arn:aws:iam::" + SamTemplate.ACCOUNT + ":role/" + roleName;
        }

        /** The assumed-role session ARN AWS names in a denial: {@code arn:aws:sts::<account>:assumed-role/<role>/<session>}. */
        public String sessionArn(String session) {
            return "arn:aws:sts::" + SamTemplate.ACCOUNT + ":assumed-role/" + roleName + "/" + session;
        }
    }

    private final Map<String, Principal> principals;

    private IamPolicies(Map<String, Principal> principals) {
        this.principals = Collections.unmodifiableMap(principals);
    }

    /** Policies of explicitly given principals (tests, tools). */
    public static IamPolicies of(List<Principal> principals) {
        Map<String, Principal> m = new LinkedHashMap<>();
        principals.forEach(p -> m.put(p.logicalId(), p));
        return new IamPolicies(m);
    }

    /**
     * Reads every principal's policies from the template (see the class comment).
     *
     * @throws IllegalStateException naming the place, for an unknown SAM policy template, a managed policy, a
     *                               {@code Condition}, a missing template parameter or an unresolvable intrinsic
     */
    public static IamPolicies of(SamTemplate template) {
        Map<String, Principal> out = new LinkedHashMap<>();
        Map<String, JsonNode> roles = template.resourcesOf("AWS::IAM::Role");
        roles.forEach((id, p) -> {
            List<Statement> st = new ArrayList<>();
            int i = 0;
            for (JsonNode policy : p.path("Policies")) {
                readDocument(template, policy.path("PolicyDocument"), id + ".Policies[" + i++ + "].PolicyDocument", st);
            }
            if (p.has("ManagedPolicyArns")) {
                throw new IllegalStateException("template.yaml: " + id + ".ManagedPolicyArns: managed policies are not evaluated by"
                        + " the local stack's IAM; write the statements inline");
            }
            out.put(id, new Principal(id, template.roleName(id), st));
        });
        template.resourcesOf("AWS::Serverless::Function", "AWS::Serverless::StateMachine").forEach((id, p) -> {
            JsonNode role = p.path("Role").path("Fn::GetAtt");
            if (role.isArray() && role.size() == 2 && out.containsKey(role.get(0).asText())) {
                Principal r = out.get(role.get(0).asText());
                out.put(id, new Principal(id, r.roleName(), r.statements()));
                return;
            }
            if (p.has("Role")) {
                throw new IllegalStateException("template.yaml: " + id + ".Role: only {Fn::GetAtt: [<AWS::IAM::Role>, Arn]} is read"
                        + " by the local stack's IAM");
            }
            List<Statement> st = new ArrayList<>();
            JsonNode policies = p.path("Policies");
            List<JsonNode> list = new ArrayList<>();
            if (policies.isArray()) {
                policies.forEach(list::add);
            } else if (!policies.isMissingNode()) {
                list.add(policies);
            }
            for (int i = 0; i < list.size(); i++) {
                readSamPolicy(template, list.get(i), id + ".Policies[" + i + "]", st);
            }
            out.put(id, new Principal(id, SamTemplate.STACK_NAME + "-" + id + "Role", st));
            scheduleRoles(template, id, p, out);
        });
        return new IamPolicies(out);
    }

    /**
     * The role SAM generates for each {@code ScheduleV2} event without a {@code RoleArn}: logical id
     * {@code <Resource><Event>Role}, allowed {@code lambda:InvokeFunction} on the function or
     * {@code states:StartExecution} on the state machine, nothing else (SAM's
     * {@code samtranslator/model/eventsources/scheduler.py} {@code _construct_execution_role} and
     * {@code samtranslator/model/iam.py}, same commit as {@link SamPolicyTemplates}).
     */
    private static void scheduleRoles(SamTemplate t, String id, JsonNode props, Map<String, Principal> out) {
        boolean function = t.resourcesOf("AWS::Serverless::Function").containsKey(id);
        props.path("Events").fields().forEachRemaining(e -> {
            JsonNode event = e.getValue();
            if (!"ScheduleV2".equals(event.path("Type").asText()) || event.path("Properties").has("RoleArn")) {
                return;
            }
            String role = id + e.getKey() + "Role";
            Statement st = function
                    ? new Statement(Effect.ALLOW, List.of("lambda:InvokeFunction"), false, List.of(SamTemplate.functionArn(id)), false,
                            role + " (SAM's ScheduleV2 role)")
                    : new Statement(Effect.ALLOW, List.of("states:StartExecution"), false,
                            List.of(t.text(Json.MAPPER.createObjectNode().put("Ref", id), id)), false, role + " (SAM's ScheduleV2 role)");
            out.put(role, new Principal(role, SamTemplate.STACK_NAME + "-" + role, List.of(st)));
        });
    }

    /** Every principal by logical id, in template order (roles first). */
    public Map<String, Principal> principals() {
        return principals;
    }

    /**
     * AWS's decision for {@code principal} performing {@code action} on {@code resource}.
     *
     * @param principal a logical id of {@link #principals()}
     * @param action    {@code service:Operation}, e.g. {@code dynamodb:Query}
     * @param resource  the resource's ARN
     * @throws IllegalArgumentException when the template has no such principal
     */
    public AccessDecision decide(String principal, String action, String resource) {
        return decide(principal, action, resource, Map.of());
    }

    /**
     * {@link #decide(String, String, String)} for a request that carries condition {@code context} keys, e.g.
     * {@code iam:PassedToService} for {@code iam:PassRole}.
     */
    public AccessDecision decide(String principal, String action, String resource, Map<String, String> context) {
        Principal p = principal(principal);
        boolean allowed = false;
        for (Statement s : p.statements()) {
            if (s.matches(action, resource, context)) {
                if (s.effect() == Effect.DENY) {
                    return AccessDecision.EXPLICIT_DENY;
                }
                allowed = true;
            }
        }
        return allowed ? AccessDecision.ALLOWED : AccessDecision.IMPLICIT_DENY;
    }

    /**
     * AWS's denial message when the request is denied, empty when allowed (see the class comment for the wording).
     *
     * @param session the role session's name ({@code <session>} in the message): a function's name for Lambda
     */
    public Optional<String> denial(String principal, String action, String resource, String session) {
        return denial(principal, action, resource, session, Map.of());
    }

    /** {@link #denial(String, String, String, String)} for a request that carries condition {@code context} keys. */
    public Optional<String> denial(String principal, String action, String resource, String session, Map<String, String> context) {
        AccessDecision d = decide(principal, action, resource, context);
        if (d == AccessDecision.ALLOWED) {
            return Optional.empty();
        }
        String head = "User: " + principal(principal).sessionArn(session) + " is not authorized to perform: " + action
                + " on resource: " + resource;
        return Optional.of(d == AccessDecision.EXPLICIT_DENY ? head + " with an explicit deny in an identity-based policy"
                : head + " because no identity-based policy allows the " + action + " action");
    }

    /** Every action pattern {@code principal}'s Allow statements name (NotAction statements excluded), in order. */
    public Set<String> allowedActions(String principal) {
        Set<String> out = new LinkedHashSet<>();
        principal(principal).statements().stream().filter(s -> s.effect() == Effect.ALLOW && !s.notAction())
                .forEach(s -> out.addAll(s.actions()));
        return out;
    }

    private Principal principal(String logicalId) {
        Principal p = principals.get(logicalId);
        if (p == null) {
            throw new IllegalArgumentException("no IAM principal " + logicalId + " in the template (known: " + principals.keySet() + ")");
        }
        return p;
    }

    /**
     * True when {@code value} matches the IAM pattern {@code pattern}: {@code *} any run of characters, {@code ?} one
     * character, everything else literally.
     */
    public static boolean wildcard(String pattern, String value, boolean ignoreCase) {
        StringBuilder re = new StringBuilder();
        for (char c : pattern.toCharArray()) {
            switch (c) {
                case '*' -> re.append(".*");
                case '?' -> re.append('.');
                default -> re.append(Pattern.quote(String.valueOf(c)));
            }
        }
        Pattern p = Pattern.compile(re.toString(), Pattern.DOTALL | (ignoreCase ? Pattern.CASE_INSENSITIVE : 0));
        return p.matcher(value).matches();
    }

    /** The local name of a bucket logical id, as for tables: {@code richter-} + kebab case ({@code ReportsBucket} → {@code richter-reports-bucket}). */
    public static String localBucketName(String logicalId) {
        return "richter-" + logicalId.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
    }

    // ------------------------------------------------------------------ reading

    private static void readSamPolicy(SamTemplate t, JsonNode policy, String where, List<Statement> out) {
        if (policy.isTextual()) {
            throw new IllegalStateException("template.yaml: " + where + ": the managed policy " + policy.asText()
                    + " is not evaluated by the local stack's IAM; write its statements inline");
        }
        if (policy.has("Statement")) {
            readDocument(t, policy, where, out);
            return;
        }
        if (!policy.isObject() || policy.size() != 1) {
            throw new IllegalStateException("template.yaml: " + where + ": a SAM policy is a policy template {<Name>: {...}}"
                    + " or a policy document {Statement: [...]}");
        }
        String name = policy.fieldNames().next();
        SamPolicyTemplates.PolicyTemplate tpl = SamPolicyTemplates.ALL.get(name);
        if (tpl == null) {
            throw new IllegalStateException("template.yaml: " + where + ": policy template " + name + " is not known to the local"
                    + " stack's IAM (known: " + new java.util.TreeSet<>(SamPolicyTemplates.ALL.keySet()) + "); add its definition"
                    + " from SAM's policy_templates.json to SamPolicyTemplates");
        }
        JsonNode args = policy.get(name);
        Map<String, String> values = new LinkedHashMap<>();
        for (String param : tpl.parameters()) {
            JsonNode v = args.path(param);
            if (v.isMissingNode()) {
                throw new IllegalStateException("template.yaml: " + where + "." + name + ": parameter " + param + " is missing");
            }
            values.put(param, resolve(t, v, where + "." + name + "." + param));
        }
        for (SamPolicyTemplates.TemplateStatement s : tpl.statements()) {
            out.add(new Statement(Effect.ALLOW, s.actions(), false,
                    s.resources().stream().map(r -> substitute(r, values)).toList(), false, where + " " + name));
        }
    }

    private static final Pattern VAR = Pattern.compile("\\$\\{([^}]+)}");

    private static String substitute(String format, Map<String, String> values) {
        Matcher m = VAR.matcher(format);
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            String v = switch (m.group(1)) {
                case "AWS::Partition" -> "aws";
                case "AWS::Region" -> SamTemplate.REGION;
                case "AWS::AccountId" -> SamTemplate.ACCOUNT;
                default -> values.get(m.group(1));
            };
            m.appendReplacement(sb, Matcher.quoteReplacement(v));
        }
        m.appendTail(sb);
        return sb.toString();
    }

    private static void readDocument(SamTemplate t, JsonNode doc, String where, List<Statement> out) {
        JsonNode statements = doc.path("Statement");
        List<JsonNode> list = new ArrayList<>();
        if (statements.isArray()) {
            statements.forEach(list::add);
        } else if (statements.isObject()) {
            list.add(statements);
        } else {
            throw new IllegalStateException("template.yaml: " + where + ".Statement: missing");
        }
        for (int i = 0; i < list.size(); i++) {
            JsonNode s = list.get(i);
            String at = where + ".Statement[" + i + "]";
            Map<String, Map<String, List<String>>> conditions = new LinkedHashMap<>();
            s.path("Condition").fields().forEachRemaining(op -> {
                if (!Statement.OPERATORS.contains(op.getKey())) {
                    throw new IllegalStateException("template.yaml: " + at + ".Condition." + op.getKey() + ": the local stack's IAM"
                            + " evaluates only " + new TreeSet<>(Statement.OPERATORS));
                }
                Map<String, List<String>> keys = new LinkedHashMap<>();
                op.getValue().fields().forEachRemaining(k -> keys.put(k.getKey(), strings(t, k.getValue(),
                        at + ".Condition." + op.getKey() + "." + k.getKey())));
                conditions.put(op.getKey(), keys);
            });
            String effect = s.path("Effect").asText("");
            if (!effect.equals("Allow") && !effect.equals("Deny")) {
                throw new IllegalStateException("template.yaml: " + at + ".Effect: must be Allow or Deny, was '" + effect + "'");
            }
            boolean notAction = s.has("NotAction");
            boolean notResource = s.has("NotResource");
            if (notAction == s.has("Action") || notResource == s.has("Resource")) {
                throw new IllegalStateException("template.yaml: " + at + ": needs exactly one of Action/NotAction and one of"
                        + " Resource/NotResource");
            }
            List<String> actions = strings(t, s.get(notAction ? "NotAction" : "Action"), at + (notAction ? ".NotAction" : ".Action"));
            List<String> resources = strings(t, s.get(notResource ? "NotResource" : "Resource"),
                    at + (notResource ? ".NotResource" : ".Resource"));
            out.add(new Statement(effect.equals("Allow") ? Effect.ALLOW : Effect.DENY, actions, notAction, resources, notResource, at,
                    conditions));
        }
    }

    private static List<String> strings(SamTemplate t, JsonNode node, String where) {
        List<String> out = new ArrayList<>();
        if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                out.add(resolve(t, node.get(i), where + "[" + i + "]"));
            }
        } else {
            out.add(resolve(t, node, where));
        }
        return out;
    }

    /** The text of a value, a {@code Ref} to a bucket giving {@link #localBucketName}. */
    private static String resolve(SamTemplate t, JsonNode v, String where) {
        JsonNode ref = v.path("Ref");
        if (ref.isTextual() && t.resourcesOf("AWS::S3::Bucket").containsKey(ref.asText())) {
            return localBucketName(ref.asText());
        }
        String s = t.text(v, where);
        if (s == null) {
            throw new IllegalStateException("template.yaml: " + where + ": missing");
        }
        return s;
    }
}
