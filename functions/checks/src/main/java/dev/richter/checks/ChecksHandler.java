package dev.richter.checks;

import com.amazonaws.services.lambda.runtime.Context;
import dev.richter.common.EventPublisher;
import dev.richter.common.JsonStreamHandler;
import dev.richter.common.Repositories;
import dev.richter.common.RunMetricsRepository;
import dev.richter.links.LinkService;

/**
 * Lambda handler of the checks function: decodes a {@link ChecksAction} and calls its use case.
 *
 * <p>Run gates ({@link RunGate}): {@code static} {@code {runId}} and {@code dynamic} {@code {runId, stage}} →
 * {@code {"outcome": "PASS|WARN|FAIL", "results": [CheckResult...]}}. Nightly ({@link NightlyCheck}):
 * {@code nightly-scopes}, {@code nightly-static}, {@code nightly-dynamic}, {@code nightly-compare} and
 * {@code nightly-failed} with {@code {scope}}. An unknown or missing action is an {@link IllegalArgumentException}
 * naming it; an unknown run or plan is one too.
 */
public final class ChecksHandler extends JsonStreamHandler<ChecksAction, Object> {
    private final RunGate gate;
    private final NightlyCheck nightly;

    /** Lambda's constructor: tables and the event bus from the environment. */
    public ChecksHandler() {
        this(Repositories.fromEnv(), EventPublisher.fromEnv());
    }

    /** The given tables and bus, the default safety gate. */
    public ChecksHandler(Repositories repositories, EventPublisher events) {
        this(repositories, events, new SafetyGate());
    }

    /** For tests: {@code gate} with a fake clock and sleeper. */
    public ChecksHandler(Repositories repositories, EventPublisher events, SafetyGate gate) {
        super(ChecksAction.class);
        LinkService links = new LinkService(repositories.dynamoDb(), repositories.tables().links());
        SafetyInputs safety = new SafetyInputs(repositories, links, gate.withSpansRead(links::recordDatastores));
        this.gate = new RunGate(repositories,
                new RunMetricsRepository(repositories.dynamoDb(), repositories.tables().runMetrics()), safety);
        this.nightly = new NightlyCheck(repositories, events, safety);
    }

    @Override
    protected Object handle(ChecksAction action, Context context) {
        return switch (action) {
            case ChecksAction.StaticGate a -> gate.staticChecks(a.runId());
            case ChecksAction.DynamicGate a -> gate.dynamicChecks(a.runId(), a.stage());
            case ChecksAction.NightlyScopes a -> nightly.scopes(System.currentTimeMillis());
            case ChecksAction.NightlyStatic a -> nightly.staticChecks(a.scopeNode(), System.currentTimeMillis());
            case ChecksAction.NightlyDynamic a -> nightly.dynamicChecks(a.scopeNode());
            case ChecksAction.NightlyCompare a -> nightly.compare(a.scopeNode());
            case ChecksAction.NightlyFailed a -> nightly.failed(a.scopeNode());
        };
    }
}
