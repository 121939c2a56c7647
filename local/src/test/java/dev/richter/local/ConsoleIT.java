package dev.richter.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The console in a real browser: Debian's Chromium, headless, driven through its ChromeDriver, against the local stack
 * and a target that counts the requests it gets ({@link FakeTarget}). A person signs in on the local identity
 * provider's page (authorization code with PKCE), creates a plan with one wrong field and sees the error at that
 * field, starts the run, watches it go live, presses Abort and sees how long the load took to stop; the target counts
 * that no request came after. Screenshots of each page go to {@code local/target/console/}.
 */
class ConsoleIT extends LocalAwsStackTestSupport {
    static final String TEAM = "team-console";
    static final Path SHOTS = root.resolve("local/target/console");
    static WebDriver browser;

    @BeforeAll
    static void openBrowser() throws Exception {
        Files.createDirectories(SHOTS);
        if (!Files.isExecutable(Path.of("/usr/bin/chromedriver"))) {
            throw new IllegalStateException("ConsoleIT needs Debian's ChromeDriver: apt-get install chromium-driver (.ci/run does)");
        }
        ChromeOptions options = new ChromeOptions();
        options.setBinary(Path.of("/usr/lib/chromium/chromium").toFile().exists() ? "/usr/lib/chromium/chromium" : "/usr/bin/chromium");
        options.addArguments("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900");
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile()).usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        browser.manage().timeouts().scriptTimeout(Duration.ofSeconds(10));
    }

    @AfterAll
    static void closeBrowser() {
        if (browser != null) {
            browser.quit();
        }
    }

    static WebDriverWait waitUpTo(int seconds) {
        return (WebDriverWait) new WebDriverWait(browser, Duration.ofSeconds(seconds), Duration.ofMillis(100))
                .ignoring(org.openqa.selenium.StaleElementReferenceException.class);
    }

    static void shot(String name) throws Exception {
        ((JavascriptExecutor) browser).executeScript("window.scrollTo(0, 0)");
        Files.write(SHOTS.resolve(name + ".png"), ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES));
    }

    static WebElement field(String path) {
        return browser.findElement(By.cssSelector("[data-path='" + path + "']"));
    }

    static void type(String path, String text) {
        WebElement e = field(path);
        e.clear();
        e.sendKeys(text);
    }

    /** The error the page shows at the field of {@code path}. */
    static String errorAt(String path) {
        return browser.findElement(By.cssSelector("[data-field='" + path + "'] .field-error")).getText();
    }

    /** Signs the tab out: the console keeps its token in the tab's sessionStorage only. */
    static void signOut() {
        browser.get(LocalAwsStack.apiBaseUrl() + "/openapi.json");
        ((JavascriptExecutor) browser).executeScript("sessionStorage.clear()");
    }

    /** Signs in as {@code oncall} of {@code team} on the local identity provider's page, asking for {@code page}. */
    static void signIn(String team, String page) {
        signOut();
        browser.get(LocalAwsStack.apiBaseUrl() + "/console" + page);
        waitUpTo(15).until(d -> d.getCurrentUrl().contains("/idp/authorize"));
        browser.findElement(By.id("team")).sendKeys(team);
        browser.findElement(By.id("sign-in")).click();
        waitUpTo(15).until(d -> d.getCurrentUrl().endsWith("/console" + page));
    }

    /**
     * Waits up to 60 s for the run page to say how the load stopped after Abort, and returns what it says: the
     * milliseconds from the flag to the workers' last send, or -1 when the flag came while no worker was sending
     * (between steps), which the page says as such.
     */
    static long abortLatencyShown() {
        try {
            waitUpTo(60).until(d -> d.findElement(By.id("abort-state")).getText().matches(".*(the load stopped \\d+ ms|no worker was sending).*"));
        } catch (org.openqa.selenium.TimeoutException e) {
            throw new AssertionError("the run page did not say how the load stopped; it shows: "
                    + browser.findElement(By.id("main")).getText(), e);
        }
        String state = browser.findElement(By.id("abort-state")).getText();
        return state.contains("the load stopped")
                ? Long.parseLong(state.replaceAll(".*the load stopped (\\d+) ms after the flag.*", "$1")) : -1;
    }

    /** Opens {@code page} of the console in the signed-in tab. */
    static void open(String page) {
        browser.get(LocalAwsStack.apiBaseUrl() + "/console" + page);
    }

    @Test
    void anExitMarkedInTheLinkTreeIsTheApisMarkAndTwoRunsOfAPlanCompareSideBySide() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            String team = "team-console-links";
            ApiClient api = api(team);
            register(api, "order", target.baseUrl());
            // two runs of one plan, compared side by side on the page the finished run links to
            var created = api.post("/plans", plan("order", 2, 2, List.<double[]>of(new double[] {2, 2})));
            assertEquals(201, created.status(), created.body());
            String planId = created.json().path("planId").asText();
            String first = start(api, planId);
            awaitReport(api, first, 180_000);
            String second = start(api, planId);
            awaitReport(api, second, 180_000);
            signIn(team, "#/runs/" + second);
            waitUpTo(30).until(d -> !d.findElements(By.linkText("compare with the previous run")).isEmpty()
                    && !d.findElements(By.id("capacity")).isEmpty());
            JsonNode capacity = api.get("/runs/" + second + "/report").json().path("capacity");
            assertTrue(browser.findElement(By.id("capacity")).getText().startsWith(
                    (capacity.path("reached").asBoolean() ? "" : "≥ ") + String.format(java.util.Locale.ROOT, "%.1f QPS",
                            capacity.path("maxSustainableQps").asDouble())), "the report's capacity: " + browser.findElement(By.id("capacity")).getText());
            assertFalse(browser.findElements(By.id("report-html")).isEmpty(), "the HTML report can be downloaded");
            shot("run-report");
            // the runs page (GET /runs): both runs, newest first, each with the capacity its report measured
            open("#/runs");
            waitUpTo(15).until(d -> d.findElements(By.cssSelector("#runs tbody tr")).size() == 2);
            List<WebElement> runRows = browser.findElements(By.cssSelector("#runs tbody tr"));
            assertEquals(List.of(second, first), runRows.stream().map(r -> r.getAttribute("data-run")).toList());
            assertEquals((capacity.path("reached").asBoolean() ? "" : "≥ ") + String.format(java.util.Locale.ROOT, "%.1f QPS",
                    capacity.path("maxSustainableQps").asDouble()), runRows.get(0).findElement(By.cssSelector(".capacity")).getText());
            open("#/runs/" + second);
            waitUpTo(30).until(d -> !d.findElements(By.linkText("compare with the previous run")).isEmpty());
            browser.findElement(By.linkText("compare with the previous run")).click();
            waitUpTo(15).until(d -> !d.findElements(By.id("compare-steps")).isEmpty());
            assertTrue(browser.findElement(By.cssSelector("main p")).getText().contains(second + " against " + first),
                    browser.findElement(By.cssSelector("main p")).getText());
            assertEquals("PASSED", api.get("/runs/" + second).json().path("run").path("outcome").asText(), "both runs held");
            JsonNode comparison = api.get("/runs/" + second + "/compare?with=previous").json();
            String firstOutcome = api.get("/runs/" + first).json().path("run").path("outcome").asText();
            // both runs ran the pre-test and the formal step: both matched, unless the first stopped after its pre-test
            assertEquals(firstOutcome.equals("PASSED") ? 2 : comparison.path("steps").size(),
                    browser.findElements(By.cssSelector("#compare-steps tbody tr")).size(),
                    "the page shows each matched step; the first run " + firstOutcome + "; the comparison: " + comparison);
            assertEquals(comparison.path("steps").size(), browser.findElements(By.cssSelector("#compare-steps tbody tr")).size(),
                    "a row per step the API matched: " + comparison);
            String regressions = browser.findElement(By.id("regressions")).getText();
            if (comparison.path("regressed").asBoolean()) {
                for (JsonNode sentence : comparison.path("regressions")) {
                    assertTrue(regressions.contains(sentence.asText()), "the page lists each regression: " + regressions);
                }
            } else {
                assertEquals("No regression.", regressions);
            }
            shot("compare");

            // followed problems: the report of a run lists them; status, owner and note set on the page are the API's
            open("#/problems");
            waitUpTo(15).until(d -> !d.findElements(By.cssSelector("#problems, main p.muted")).isEmpty());
            List<WebElement> problems = browser.findElements(By.cssSelector("#problems tbody tr"));
            JsonNode listed = api.get("/problems").json().path("items");
            assertEquals(listed.size(), problems.size(), "one row per followed problem");
            if (!problems.isEmpty()) {
                WebElement problem = problems.get(0);
                String id = problem.getAttribute("data-problem");
                new org.openqa.selenium.support.ui.Select(problem.findElement(By.cssSelector("select[data-field='status']"))).selectByValue("acknowledged");
                problem.findElement(By.cssSelector("input[data-field='owner']")).sendKeys("oncall");
                problem.findElement(By.tagName("button")).click();
                waitUpTo(15).until(d -> d.findElement(By.cssSelector("#problems tr[data-problem='" + id + "']")).getText().contains("saved"));
                JsonNode after = null;
                for (JsonNode p : api.get("/problems").json().path("items")) {
                    after = p.path("id").asText().equals(id) ? p : after;
                }
                assertEquals("acknowledged", after.path("status").asText(), after.toString());
                assertEquals("oncall", after.path("owner").asText());
            }
            shot("problems");

            // the links: the shop's services in scope, its trace ingested, then an exit marked mock-required on the page
            register(api, "gateway", target.baseUrl());
            register(api, "inventory", target.baseUrl());
            var ingested = api.post("/traces?file=shop-spring-one-order.otlp.json",
                    Files.readString(root.resolve("libs/links/src/test/resources/trace/shop-spring-one-order.otlp.json")));
            assertEquals(200, ingested.status(), ingested.body());

            String entry = "gateway POST /orders";
            String exit = "127.0.0.1 POST";
            open("#/links?entry=" + java.net.URLEncoder.encode(entry, java.nio.charset.StandardCharsets.UTF_8).replace("+", "%20"));
            waitUpTo(15).until(d -> !d.findElements(By.cssSelector("#exits tr[data-exit-row='" + exit + "']")).isEmpty());
            assertTrue(!browser.findElements(By.cssSelector("#tree-graph rect.node")).isEmpty(), "the tree is drawn");
            WebElement row = browser.findElement(By.cssSelector("#exits tr[data-exit-row='" + exit + "']"));
            assertEquals("false", row.findElement(By.cssSelector("[data-mark]")).getAttribute("data-mark"));
            row.findElement(By.cssSelector("button[data-exit]")).click();
            waitUpTo(15).until(d -> "true".equals(d.findElement(By.cssSelector("#exits tr[data-exit-row='" + exit + "'] [data-mark]"))
                    .getAttribute("data-mark")));
            shot("links");
            boolean marked = false;
            for (JsonNode x : api.get("/links/exits?entry=" + java.net.URLEncoder.encode(entry, java.nio.charset.StandardCharsets.UTF_8))
                    .json().path("exits")) {
                marked |= x.path("toNode").asText().equals(exit) && x.path("mockRequired").asBoolean();
            }
            assertTrue(marked, "GET /links/exits answers the mark the page set");
            open("#/services");
            waitUpTo(15).until(d -> d.findElements(By.cssSelector("#services tbody tr")).size() == 3);
            shot("services");

            // a narrow window (a phone): the run's page fits its width, its tables scroll inside their own box
            browser.manage().window().setSize(new org.openqa.selenium.Dimension(400, 860));
            try {
                long openedAtNs = System.nanoTime();
                open("#/runs/" + second);
                waitUpTo(15).until(d -> !d.findElements(By.id("steps")).isEmpty());
                System.out.printf("console: the run's page showed its steps %d ms after it was opened%n", (System.nanoTime() - openedAtNs) / 1_000_000);
                Object overflow = ((JavascriptExecutor) browser).executeScript(
                        "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
                assertTrue(((Number) overflow).longValue() <= 0, "the page is wider than the window by " + overflow + " px");
                shot("run-narrow");
            } finally {
                browser.manage().window().setSize(new org.openqa.selenium.Dimension(1280, 900));
            }

            boolean audited = false;
            for (JsonNode e : api.get("/audit?limit=100").json().path("items")) {
                audited |= e.path("caller").asText().equals("oncall");
            }
            assertTrue(audited, "the mark is audited as the signed-in user");
        }
    }

    @Test
    void signInCreateAPlanWithAWrongFieldStartItWatchItLiveAndAbortIt() throws Exception {
        try (FakeTarget target = new FakeTarget()) {
            ApiClient api = api(TEAM);
            register(api, "shop-console", target.baseUrl());
            String console = LocalAwsStack.apiBaseUrl() + "/console";

            // not signed in: the console sends the browser to the identity provider, then back to the page asked for
            signOut();
            browser.get(console + "#/plans/new");
            waitUpTo(15).until(d -> d.getCurrentUrl().contains("/idp/authorize"));
            assertTrue(browser.getCurrentUrl().contains("code_challenge_method=S256"), browser.getCurrentUrl());
            shot("sign-in");
            browser.findElement(By.id("team")).sendKeys(TEAM);
            browser.findElement(By.id("sign-in")).click();
            waitUpTo(15).until(d -> !d.findElements(By.id("plan-form")).isEmpty());
            assertTrue(browser.getCurrentUrl().endsWith("/console#/plans/new"), "the code left the URL: " + browser.getCurrentUrl());
            assertEquals("", ((JavascriptExecutor) browser).executeScript("return Object.keys(localStorage).join(',')"),
                    "nothing in local storage");
            assertTrue(browser.findElement(By.id("who")).getText().contains("team " + TEAM));

            // one wrong field: the API's {path, reason} shows at that field, and nothing is created
            type("$.name", "console plan");
            type("$.scenarios[0].service", "shop-console");
            type("$.scenarios[0].requests[0].method", "POST");
            type("$.scenarios[0].requests[0].path", "/orders");
            type("$.preTest.qps", "-2");
            type("$.preTest.durationS", "2");
            type("$.formal.steps[0].qps", "50");   // the warm-up ramps toward it: Abort lands on a load of tens of QPS
            type("$.formal.steps[0].durationS", "120");
            browser.findElement(By.id("save")).click();
            waitUpTo(15).until(d -> !errorAt("$.preTest.qps").isEmpty());
            assertTrue(field("$.preTest.qps").getAttribute("class").contains("invalid"));
            assertEquals("", errorAt("$.name"), "only the wrong field shows an error");
            shot("plan-field-error");
            assertEquals(0, api.get("/plans").json().path("items").size(), "the refused plan was not stored");

            type("$.preTest.qps", "2");
            browser.findElement(By.id("estimate")).click();   // before saving: POST /plans/estimate
            waitUpTo(15).until(d -> !d.findElements(By.cssSelector("#draft-estimate #plan-estimate")).isEmpty());
            assertEquals("", errorAt("$.preTest.qps"), "the fixed field's error is gone");
            assertTrue(browser.findElement(By.id("draft-estimate")).getText().contains("Within every limit."),
                    browser.findElement(By.id("draft-estimate")).getText());
            shot("plan-draft-estimate");
            assertEquals(0, api.get("/plans").json().path("items").size(), "an estimate stores nothing");
            browser.findElement(By.id("save")).click();
            waitUpTo(15).until(d -> d.getCurrentUrl().matches(".*#/plans/plan-[^/]+$") && !d.findElements(By.id("start-now")).isEmpty()
                    && !d.findElements(By.id("plan-estimate")).isEmpty());
            String planId = browser.getCurrentUrl().replaceAll(".*#/plans/", "");
            assertEquals("console plan", api.get("/plans/" + planId).json().path("name").asText());
            // the estimate's room in the account and the worker's in-flight cap, as GET /plans/{id}/estimate gives them
            JsonNode estimate = api.get("/plans/" + planId + "/estimate").json();
            String cards = browser.findElement(By.id("plan-estimate")).getText();
            assertTrue(cards.contains("Lambdas left\n" + estimate.path("lambdaConcurrencyLeft").asInt() + " ("
                    + estimate.path("lambdaReserve").asInt() + " kept)"), cards);
            assertTrue(cards.contains("In flight per worker\n" + estimate.path("inFlight").path("inFlightCap").asInt() + " at "),
                    cards);
            shot("plan");

            // start now: the run's page goes live (the step, its target and achieved rate as the fault decider read them)
            browser.findElement(By.id("start-now")).click();
            waitUpTo(15).until(d -> d.getCurrentUrl().matches(".*#/runs/run-[^/]+$"));
            String runId = browser.getCurrentUrl().replaceAll(".*#/runs/", "");
            try {
                waitUpTo(90).until(d -> target.arrivalsMs.size() >= 20   // the warm-up is sending, past the pre-test's 4
                        && d.findElement(By.id("run-step")).getText().matches("(warm-up|formal) .*")
                        && Double.parseDouble(d.findElement(By.id("achieved-qps")).getText().replace("–", "0")) > 0
                        && !d.findElement(By.id("achieved-qps")).getText().equals("–")
                        && !d.findElements(By.cssSelector("#chart-qps .uplot")).isEmpty());
            } catch (org.openqa.selenium.TimeoutException e) {
                shot("run-not-live");
                throw new AssertionError("the run's page did not go live; it shows: " + browser.findElement(By.id("main")).getText()
                        + "\nGET /runs/" + runId + ": " + api.get("/runs/" + runId).body(), e);
            }
            double targetQps = Double.parseDouble(browser.findElement(By.id("target-qps")).getText());
            assertTrue(targetQps > 0 && targetQps <= 50.0, "the step's target: " + targetQps);
            shot("run-live");

            // a deep link to the run opens the same page
            browser.get(console + "#/runs/" + runId);
            waitUpTo(15).until(d -> d.findElement(By.id("run-id")).getText().equals(runId));

            // abort: the page asks why, then shows how long the load took to stop; the target counts no request after
            browser.findElement(By.id("abort")).click();
            assertTrue(browser.findElement(By.id("abort-reason")).getAttribute("class").contains("invalid"), "a reason is required");
            browser.findElement(By.id("abort-reason")).sendKeys("console test");
            long pressedAtMs = System.currentTimeMillis();
            int before = target.arrivalsMs.size();
            browser.findElement(By.id("abort")).click();
            long latencyMs;
            try {
                latencyMs = abortLatencyShown();
            } catch (org.openqa.selenium.TimeoutException e) {
                shot("abort-not-shown");
                throw new AssertionError("the page did not show the load stopping; it shows: " + browser.findElement(By.id("main")).getText()
                        + "\nGET /runs/" + runId + ": " + api.get("/runs/" + runId).body(), e);
            }
            int atStop = target.arrivalsMs.size();
            Thread.sleep(2_000);
            assertEquals(atStop, target.arrivalsMs.size(), "no request reached the target after the page said the load stopped");
            long lastMs = target.lastArrivalMs();
            System.out.printf("console abort: pressed at %d, %d requests before, %d at the stop; last request %d ms after"
                    + " pressing Abort; the run's abort latency %d ms%n", pressedAtMs, before, atStop, lastMs - pressedAtMs, latencyMs);
            assertTrue(before >= 20, "Abort was pressed while the load ran: " + before + " requests before");
            assertTrue(lastMs - pressedAtMs < 5_000, "the last request came " + (lastMs - pressedAtMs) + " ms after Abort");
            JsonNode run = api.get("/runs/" + runId).json().path("run");
            assertEquals("requested by oncall: console test", run.path("abortReason").asText(), "audited as the signed-in user");
            shot("run-aborted");

            // the runs list, newest first, links to the run
            browser.get(console + "#/runs");
            waitUpTo(15).until(d -> !d.findElements(By.cssSelector("#runs tr[data-run='" + runId + "']")).isEmpty());
            shot("runs");
            List<WebElement> rows = browser.findElements(By.cssSelector("#runs tbody tr"));
            assertEquals(runId, rows.get(0).getAttribute("data-run"));

            // the page's policy refuses inline script: a script the page did not load from its origin does not run
            Object ran = ((JavascriptExecutor) browser).executeScript(
                    "const s = document.createElement('script'); s.textContent = 'window.__inline = 1'; document.body.append(s); return window.__inline === 1;");
            assertFalse((Boolean) ran, "the Content-Security-Policy blocks inline script");
        }
    }
}
