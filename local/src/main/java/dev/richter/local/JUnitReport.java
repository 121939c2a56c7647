package dev.richter.local;

import com.fasterxml.jackson.databind.JsonNode;
import dev.richter.report.RunComparison;
import java.io.StringWriter;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.xml.stream.XMLOutputFactory;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamWriter;

/**
 * A run's report as a JUnit XML file, for CI systems that show test results ({@code ./richter run}).
 *
 * <p>The format is the one Ant's JUnit task and Maven Surefire write and Jenkins reads (its schema: the Jenkins xUnit
 * plugin's {@code junit-10.xsd}; {@code local/src/test/resources/junit-richter.xsd} checks what this class writes against
 * the elements and attributes that schema defines): one {@code <testsuites>} with one {@code <testsuite>} named after
 * the plan, holding
 * <ul>
 *   <li>{@code outcome}: fails unless the run {@code PASSED} (the outcome reason as its message);</li>
 *   <li>one test per step ({@code classname} {@code richter.step}, name {@code formal step 2 at 40 QPS}): fails with each
 *       regression of that step against the baseline run; its figures in {@code system-out};</li>
 *   <li>{@code capacity}: fails when the capacity fell beyond the threshold (the comparison's first regression);</li>
 *   <li>one test per resilience finding ({@code richter.resilience}): {@code FAILS} is a failure, {@code NOT_OBSERVED}
 *       is skipped, {@code HOLDS} and {@code WEAK} pass (the line in {@code system-out});</li>
 *   <li>one test per problem to follow ({@code richter.problem}): a {@code FAIL} problem is a failure, a {@code WARN}
 *       passes with the problem in {@code system-out}.</li>
 * </ul>
 * Steps are numbered from 1, as in the report's text. {@code time} is in seconds.
 */
final class JUnitReport {
    private JUnitReport() {}

    /** One test case: its class, name, seconds, and at most one of failure message / skipped message. */
    record Case(String classname, String name, double timeS, String failure, String skipped, String out) {}

    /**
     * The test cases of a report.
     *
     * @param report     the run's report document ({@code GET /runs/{runId}/report})
     * @param comparison the comparison with the previous run ({@code GET /runs/{runId}/compare?with=previous}); null
     *                   when there is none
     */
    static List<Case> cases(JsonNode report, JsonNode comparison) {
        List<Case> out = new ArrayList<>();
        String outcome = report.path("outcome").asText();
        out.add(new Case("richter.run", "outcome", 0, outcome.equals("PASSED") ? null : outcome + ": "
                + report.path("outcomeReason").asText(), null, report.path("outcomeReason").asText()));
        Map<String, List<String>> stepRegressions = new HashMap<>();
        List<String> capacity = new ArrayList<>();
        if (comparison != null) {
            for (JsonNode s : comparison.path("steps")) {
                List<String> r = new ArrayList<>();
                s.path("regressions").forEach(x -> r.add(x.asText()));
                stepRegressions.put(s.path("stage").asText() + "#" + s.path("stepIndex").asInt(), r);
            }
            comparison.path("regressions").forEach(x -> {
                if (x.asText().startsWith("capacity")) {
                    capacity.add(x.asText());
                }
            });
        }
        for (String stage : List.of("preTest", "warmUp", "formal", "confirm")) {
            for (JsonNode s : report.path(stage)) {
                String name = RunComparison.label(s);
                List<String> r = stepRegressions.getOrDefault(s.path("stage").asText() + "#" + s.path("stepIndex").asInt(), List.of());
                JsonNode lat = s.path("latencyMs");
                String figures = "achieved " + num(s.path("achievedQps").asDouble()) + " QPS, sent "
                        + s.path("counters").path("sent").asLong() + ", success " + num(s.path("successRatePct").asDouble())
                        + " %, p50 " + (lat.path("p50").isNumber() ? num(lat.path("p50").asDouble()) + " ms" : "-")
                        + ", p99 " + (lat.path("p99").isNumber() ? num(lat.path("p99").asDouble()) + " ms" : "-");
                out.add(new Case("richter.step", name, s.path("durationS").asDouble(), r.isEmpty() ? null : String.join("; ", r),
                        null, figures));
            }
        }
        JsonNode cap = report.path("capacity");
        out.add(new Case("richter.run", "capacity", 0, capacity.isEmpty() ? null : String.join("; ", capacity), null,
                cap.path("measured").asBoolean() ? (cap.path("reached").asBoolean() ? "" : ">= ")
                        + num(cap.path("maxSustainableQps").asDouble()) + " QPS: " + cap.path("limitedBy").asText()
                        : cap.path("limitedBy").asText()));
        for (JsonNode f : report.path("resilience").path("findings")) {
            String status = f.path("status").asText();
            out.add(new Case("richter.resilience", f.path("defence").asText(), 0,
                    status.equals("FAILS") ? "FAILS: " + f.path("line").asText() : null,
                    status.equals("NOT_OBSERVED") ? f.path("line").asText() : null, status + ": " + f.path("line").asText()));
        }
        for (JsonNode p : report.path("problems")) {
            String text = p.path("problem").asText() + " (next: " + p.path("next").asText() + ")";
            out.add(new Case("richter.problem", p.path("key").asText(p.path("kind").asText() + ":" + p.path("subject").asText()),
                    0, p.path("severity").asText().equals("FAIL") ? text : null, null, text));
        }
        return out;
    }

    /**
     * The JUnit XML document of a report.
     *
     * @param suite      the suite's name (the plan's)
     * @param runId      the run, as the suite's {@code id}
     * @param atMs       when the report was written, epoch ms ({@code timestamp})
     * @param cases      its test cases ({@link #cases})
     */
    static String xml(String suite, String runId, long atMs, List<Case> cases) {
        long failures = cases.stream().filter(c -> c.failure() != null).count();
        long skipped = cases.stream().filter(c -> c.skipped() != null).count();
        double time = cases.stream().mapToDouble(Case::timeS).sum();
        StringWriter text = new StringWriter();
        try {
            XMLStreamWriter w = XMLOutputFactory.newFactory().createXMLStreamWriter(text);
            w.writeStartDocument("UTF-8", "1.0");
            w.writeStartElement("testsuites");
            w.writeAttribute("name", "richter");
            w.writeAttribute("tests", Integer.toString(cases.size()));
            w.writeAttribute("failures", Long.toString(failures));
            w.writeAttribute("errors", "0");
            w.writeAttribute("time", seconds(time));
            w.writeStartElement("testsuite");
            w.writeAttribute("name", suite);
            w.writeAttribute("id", runId);
            w.writeAttribute("tests", Integer.toString(cases.size()));
            w.writeAttribute("failures", Long.toString(failures));
            w.writeAttribute("errors", "0");
            w.writeAttribute("skipped", Long.toString(skipped));
            w.writeAttribute("time", seconds(time));
            w.writeAttribute("timestamp", Instant.ofEpochMilli(atMs).toString());
            for (Case c : cases) {
                w.writeStartElement("testcase");
                w.writeAttribute("classname", c.classname());
                w.writeAttribute("name", c.name());
                w.writeAttribute("time", seconds(c.timeS()));
                if (c.failure() != null) {
                    w.writeStartElement("failure");
                    w.writeAttribute("type", c.classname());
                    w.writeAttribute("message", c.failure());
                    w.writeCharacters(c.failure());
                    w.writeEndElement();
                } else if (c.skipped() != null) {
                    w.writeStartElement("skipped");
                    w.writeAttribute("message", c.skipped());
                    w.writeEndElement();
                }
                if (c.out() != null && !c.out().isEmpty()) {
                    w.writeStartElement("system-out");
                    w.writeCharacters(c.out());
                    w.writeEndElement();
                }
                w.writeEndElement();
            }
            w.writeEndElement();
            w.writeEndElement();
            w.writeEndDocument();
            w.close();
        } catch (XMLStreamException e) {
            throw new IllegalStateException("writing JUnit XML to a string", e);
        }
        return text + "\n";
    }

    /** Seconds with three decimals and no grouping ({@code 15.000}), as Surefire writes {@code time}. */
    private static String seconds(double s) {
        return String.format(java.util.Locale.ROOT, "%.3f", s);
    }

    private static String num(double v) {
        return RunComparison.num(v);
    }
}
