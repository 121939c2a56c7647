package dev.richter.data.flow;

import dev.richter.common.model.TargetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks a {@link Flow} before it is stored or run, and orders its units.
 *
 * <p>Reported, each with the JSON path of the offending field (the API's 400 {@code errors}):
 * unknown slot types ({@code $.units[0].unit.inputs.email}), duplicate or malformed unit ids ({@code $.units[1].id}),
 * an {@code http} unit without method or URL, a template placeholder that is no input slot
 * ({@code $.units[0].unit.url}), outputs without an extraction and extractions of undeclared outputs
 * ({@code $.units[0].unit.extract.token}), JSONata syntax errors, input slots not wired and wirings of undeclared
 * slots ({@code $.units[2].inputs.token}), sources naming an unknown unit, output, flow input or generator, type
 * mismatches between a source and the slot it feeds, cycles (reported at the wiring that closes them, with the
 * cycle's units), columns with bad sources ({@code $.columns.token}).
 */
public final class FlowValidator {
    /** {@code {{name}}} in URL and header templates. */
    public static final Pattern PLACEHOLDER = Pattern.compile("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_]*)\\s*}}");
    private static final Pattern ID = Pattern.compile("[A-Za-z][A-Za-z0-9_]*");
    private static final Pattern METHOD = Pattern.compile("[A-Z]+");
    /** Generators a source may name, with their types. */
    public static final Map<String, SlotType> GENERATORS = Map.of(
            "gen.row", SlotType.NUMBER, "gen.uuid", SlotType.STRING, "gen.timestampMs", SlotType.NUMBER);

    private FlowValidator() {}

    /** A problem with the field at {@code path}. */
    public record FieldProblem(String path, String reason) {}

    /** A flow that passed: its units' indexes in run order. */
    public record Checked(Flow flow, List<Integer> order) {}

    /** The flow failed validation; {@link #problems()} in document order. */
    public static final class InvalidFlowException extends RuntimeException {
        private final List<FieldProblem> problems;

        /** @param problems at least one; the message names the first and how many more */
        public InvalidFlowException(List<FieldProblem> problems) {
            super(problems.get(0).path() + ": " + problems.get(0).reason()
                    + (problems.size() > 1 ? " (and " + (problems.size() - 1) + " more)" : ""));
            this.problems = List.copyOf(problems);
        }

        /** Every problem, in the order found (document order, then cycles). */
        public List<FieldProblem> problems() {
            return problems;
        }
    }

    /**
     * Validates {@code flow}.
     *
     * @return the flow with its run order (a topological order, list order among independent units)
     * @throws InvalidFlowException with every problem found
     */
    public static Checked validate(Flow flow) {
        List<FieldProblem> problems = new ArrayList<>();
        if (flow.name() == null || flow.name().isBlank()) {
            problems.add(new FieldProblem("$.name", "required"));
        }
        Map<String, SlotType> flowInputs = new LinkedHashMap<>();
        flow.inputs().forEach((name, type) -> slotType("$.inputs." + name, type, problems).ifPresent(t -> flowInputs.put(name, t)));
        if (flow.units().isEmpty()) {
            problems.add(new FieldProblem("$.units", "a flow has at least one unit"));
        }
        Map<String, Integer> index = new HashMap<>();
        List<Map<String, SlotType>> outputs = new ArrayList<>();
        for (int i = 0; i < flow.units().size(); i++) {
            Flow.Step step = flow.units().get(i);
            String at = "$.units[" + i + "]";
            if (step.id() == null || !ID.matcher(step.id()).matches() || step.id().equals("input") || step.id().equals("gen")) {
                problems.add(new FieldProblem(at + ".id", "must match [A-Za-z][A-Za-z0-9_]* and not be 'input' or 'gen'"));
            } else if (index.putIfAbsent(step.id(), i) != null) {
                problems.add(new FieldProblem(at + ".id", "duplicate unit id '" + step.id() + "' (also $.units[" + index.get(step.id()) + "])"));
            }
            Map<String, SlotType> outs = new LinkedHashMap<>();
            if (step.unit() == null) {
                problems.add(new FieldProblem(at + ".unit", "required"));
            } else {
                checkUnit(at + ".unit", step.unit(), problems);
                step.unit().outputs().forEach((name, type) -> SlotType.parse(type).ifPresent(t -> outs.put(name, t)));
            }
            outputs.add(outs);
        }
        // wiring
        List<List<Integer>> dependsOn = new ArrayList<>();
        for (int i = 0; i < flow.units().size(); i++) {
            Flow.Step step = flow.units().get(i);
            String at = "$.units[" + i + "].inputs";
            List<Integer> deps = new ArrayList<>();
            dependsOn.add(deps);
            Map<String, String> declared = step.unit() == null ? Map.of() : step.unit().inputs();
            for (String slot : declared.keySet()) {
                if (!step.inputs().containsKey(slot)) {
                    problems.add(new FieldProblem(at + "." + slot, "input slot '" + slot + "' is not wired: give it a source"));
                }
            }
            for (var wire : step.inputs().entrySet()) {
                String path = at + "." + wire.getKey();
                if (!declared.containsKey(wire.getKey())) {
                    problems.add(new FieldProblem(path, "unknown slot: the unit declares no input '" + wire.getKey() + "'"
                            + (declared.isEmpty() ? "" : " (inputs: " + String.join(", ", declared.keySet()) + ")")));
                    continue;
                }
                Optional<SlotType> want = SlotType.parse(declared.get(wire.getKey()));
                Optional<SlotType> got = source(path, wire.getValue(), flowInputs, index, outputs, problems, deps);
                if (want.isPresent() && got.isPresent() && want.get() != got.get()) {
                    problems.add(new FieldProblem(path, "type mismatch: '" + wire.getValue() + "' is a " + got.get().wireName()
                            + ", the slot takes a " + want.get().wireName()));
                }
            }
        }
        if (flow.columns().isEmpty()) {
            problems.add(new FieldProblem("$.columns", "a flow names at least one column of its data set"));
        }
        flow.columns().forEach((col, src) -> source("$.columns." + col, src, flowInputs, index, outputs, problems, new ArrayList<>()));
        List<Integer> order = order(flow, dependsOn, problems);
        if (!problems.isEmpty()) {
            throw new InvalidFlowException(problems);
        }
        return new Checked(flow, order);
    }

    /**
     * The scheme, host and port of a URL template whose authority has no placeholder, by {@link TargetAddress#of}
     * (a port from 1 to 65535, a host): a flow's call to {@code http://svc:99999/} fails here, not in the middle of
     * its run. The path and query are the template's own.
     */
    private static void checkAuthority(String at, String url, List<FieldProblem> problems) {
        int start = url.indexOf("://");
        if (start < 0) {
            return;
        }
        int end = start + 3;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        String origin = url.substring(0, end);
        if (origin.contains("{{")) {
            return;
        }
        try {
            TargetAddress.of(origin);
        } catch (IllegalArgumentException e) {
            problems.add(new FieldProblem(at, "'" + origin + "' " + e.getMessage()));
        }
    }

    private static void checkUnit(String at, LogicUnit unit, List<FieldProblem> problems) {
        unit.inputs().forEach((name, type) -> slotType(at + ".inputs." + name, type, problems));
        unit.outputs().forEach((name, type) -> slotType(at + ".outputs." + name, type, problems));
        if ("http".equals(unit.kind())) {
            if (unit.method() == null || !METHOD.matcher(unit.method()).matches()) {
                problems.add(new FieldProblem(at + ".method", "required: an upper-case HTTP method such as POST"));
            }
            if (unit.url() == null || !(unit.url().startsWith("http://") || unit.url().startsWith("https://") || unit.url().startsWith("{{"))) {
                problems.add(new FieldProblem(at + ".url", "required: an absolute http(s) URL template"));
            } else {
                placeholders(at + ".url", unit.url(), unit, problems);
                checkAuthority(at + ".url", unit.url(), problems);
            }
            unit.headers().forEach((name, value) -> placeholders(at + ".headers." + name, value, unit, problems));
            if (unit.body() != null) {
                expression(at + ".body", unit.body(), problems);
            }
            for (String out : unit.outputs().keySet()) {
                if (!unit.extract().containsKey(out)) {
                    problems.add(new FieldProblem(at + ".extract." + out, "output slot '" + out + "' has no extraction expression"));
                }
            }
            unit.extract().forEach((out, expr) -> {
                if (!unit.outputs().containsKey(out)) {
                    problems.add(new FieldProblem(at + ".extract." + out, "unknown slot: no output '" + out + "' is declared"));
                } else {
                    expression(at + ".extract." + out, expr, problems);
                }
            });
        } else if ("transform".equals(unit.kind())) {
            if (unit.expression() == null || unit.expression().isBlank()) {
                problems.add(new FieldProblem(at + ".expression", "required: a JSONata expression yielding an object of the outputs"));
            } else {
                expression(at + ".expression", unit.expression(), problems);
            }
        } else {
            problems.add(new FieldProblem(at + ".kind", "must be 'http' or 'transform'"));
        }
    }

    private static void placeholders(String path, String template, LogicUnit unit, List<FieldProblem> problems) {
        Matcher m = PLACEHOLDER.matcher(template);
        while (m.find()) {
            if (!unit.inputs().containsKey(m.group(1))) {
                problems.add(new FieldProblem(path, "unknown slot '{{" + m.group(1) + "}}': not an input slot of the unit"));
            }
        }
    }

    private static void expression(String path, String expr, List<FieldProblem> problems) {
        try {
            Expressions.parse(expr);
        } catch (Expressions.ExpressionException e) {
            problems.add(new FieldProblem(path, "JSONata: " + e.getMessage()));
        }
    }

    private static Optional<SlotType> slotType(String path, String type, List<FieldProblem> problems) {
        Optional<SlotType> t = SlotType.parse(type);
        if (t.isEmpty()) {
            problems.add(new FieldProblem(path, "unknown type '" + type + "': one of string, number, boolean, object, array"));
        }
        return t;
    }

    private static Optional<SlotType> source(String path, String src, Map<String, SlotType> flowInputs, Map<String, Integer> index,
                                             List<Map<String, SlotType>> outputs, List<FieldProblem> problems, List<Integer> deps) {
        if (src == null || !src.contains(".")) {
            problems.add(new FieldProblem(path, "source '" + src + "' must be <unitId>.<output>, input.<name> or gen.row|uuid|timestampMs"));
            return Optional.empty();
        }
        if (src.startsWith("gen.")) {
            SlotType t = GENERATORS.get(src);
            if (t == null) {
                problems.add(new FieldProblem(path, "unknown generator '" + src + "' (gen.row, gen.uuid, gen.timestampMs)"));
            }
            return Optional.ofNullable(t);
        }
        String head = src.substring(0, src.indexOf('.'));
        String slot = src.substring(src.indexOf('.') + 1);
        if (head.equals("input")) {
            SlotType t = flowInputs.get(slot);
            if (t == null) {
                problems.add(new FieldProblem(path, "unknown slot: the flow has no input '" + slot + "'"));
            }
            return Optional.ofNullable(t);
        }
        Integer unit = index.get(head);
        if (unit == null) {
            problems.add(new FieldProblem(path, "unknown unit '" + head + "' in source '" + src + "'"));
            return Optional.empty();
        }
        SlotType t = outputs.get(unit).get(slot);
        if (t == null) {
            problems.add(new FieldProblem(path, "unknown slot: unit '" + head + "' has no output '" + slot + "'"));
            return Optional.empty();
        }
        deps.add(unit);
        return Optional.of(t);
    }

    /** Kahn's algorithm, lowest list index first; on a cycle, one problem at the wiring that closes it. */
    private static List<Integer> order(Flow flow, List<List<Integer>> dependsOn, List<FieldProblem> problems) {
        int n = dependsOn.size();
        int[] pending = new int[n];
        List<List<Integer>> dependents = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            dependents.add(new ArrayList<>());
        }
        for (int i = 0; i < n; i++) {
            for (int d : dependsOn.get(i)) {
                pending[i]++;
                dependents.get(d).add(i);
            }
        }
        List<Integer> order = new ArrayList<>();
        PriorityQueue<Integer> ready = new PriorityQueue<>();
        for (int i = 0; i < n; i++) {
            if (pending[i] == 0) {
                ready.add(i);
            }
        }
        while (!ready.isEmpty()) {
            int u = ready.poll();
            order.add(u);
            for (int v : dependents.get(u)) {
                if (--pending[v] == 0) {
                    ready.add(v);
                }
            }
        }
        if (order.size() < n) {
            List<Integer> cycle = findCycle(dependsOn, pending);
            int closing = cycle.get(0);
            int from = cycle.get(1 % cycle.size());
            Flow.Step step = flow.units().get(closing);
            String via = step.inputs().entrySet().stream()
                    .filter(e -> e.getValue() != null && e.getValue().startsWith(flow.units().get(from).id() + "."))
                    .map(Map.Entry::getKey).findFirst().orElse("");
            List<String> names = new ArrayList<>();
            for (int c : cycle) {
                names.add(flow.units().get(c).id());
            }
            names.add(flow.units().get(closing).id());
            problems.add(new FieldProblem("$.units[" + closing + "].inputs" + (via.isEmpty() ? "" : "." + via),
                    "cycle: " + String.join(" <- ", names) + " (each unit needs the next one's output)"));
        }
        return order;
    }

    /** A cycle among the units still pending, as unit indexes (each depends on the next, the last on the first). */
    private static List<Integer> findCycle(List<List<Integer>> dependsOn, int[] pending) {
        int start = 0;
        while (pending[start] == 0) {
            start++;
        }
        List<Integer> path = new ArrayList<>();
        Map<Integer, Integer> seen = new HashMap<>();
        int u = start;
        while (!seen.containsKey(u)) {
            seen.put(u, path.size());
            path.add(u);
            int next = -1;
            for (int d : dependsOn.get(u)) {
                if (pending[d] > 0) {
                    next = d;
                    break;
                }
            }
            u = next;
        }
        return path.subList(seen.get(u), path.size());
    }
}
