// Richter's console: a page of the HTTP API that calls the API with the signed-in user's token.
// Sign-in: OAuth 2.0 authorization code with PKCE (RFC 7636, S256) against the issuer the API trusts
// (console/config.json). The token lives in this tab's sessionStorage only, never in a URL or localStorage.
// Pages are hash routes (#/runs/<runId>), so every page has a URL that can be pasted into a chat.

const root = location.pathname.replace(/console\/?$/, '');
const TOKEN = 'richter.console.token';
const PKCE = 'richter.console.pkce';
const LIVE_MS = 1500;
let timer = null;

// ---- small DOM helpers (text only: nothing the API returns is parsed as HTML) ----
function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : String(v));
  }
  for (const kid of kids.flat()) {
    if (kid === undefined || kid === null || kid === false) continue;
    e.append(kid instanceof Node ? kid : document.createTextNode(String(kid)));
  }
  return e;
}
const main = () => document.getElementById('main');
function show(...nodes) { main().replaceChildren(...nodes); }
const fmtTime = (ms) => (ms ? new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '');
const num = (v, digits = 1) => (v === undefined || v === null || Number.isNaN(v) ? '–' : Number(v).toFixed(digits));
const link = (href, text) => el('a', { href }, text);

// ---- sign-in ----
function b64url(bytes) {
  let s = '';
  bytes.forEach((b) => { s += String.fromCharCode(b); });
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
const random = (n) => b64url(crypto.getRandomValues(new Uint8Array(n)));

async function config() {
  const c = await (await fetch(root + 'console/config.json')).json();
  if (!c.authorizationEndpoint || !c.tokenEndpoint) {
    const d = await (await fetch(c.issuer.replace(/\/$/, '') + '/.well-known/openid-configuration')).json();
    c.authorizationEndpoint = c.authorizationEndpoint || d.authorization_endpoint;
    c.tokenEndpoint = c.tokenEndpoint || d.token_endpoint;
  }
  c.authorizationEndpoint = new URL(c.authorizationEndpoint, location.origin).href;
  c.tokenEndpoint = new URL(c.tokenEndpoint, location.origin).href;
  return c;
}
const redirectUri = () => location.origin + root + 'console';

async function signIn() {
  const c = await config();
  const verifier = random(32);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  const state = random(16);
  sessionStorage.setItem(PKCE, JSON.stringify({ verifier, state, back: location.hash || '#/runs' }));
  const q = new URLSearchParams({ response_type: 'code', client_id: c.clientId, redirect_uri: redirectUri(), state,
    code_challenge: b64url(new Uint8Array(digest)), code_challenge_method: 'S256', scope: 'openid' });
  location.assign(c.authorizationEndpoint + '?' + q);
}

async function finishSignIn(params) {
  const pending = JSON.parse(sessionStorage.getItem(PKCE) || 'null');
  sessionStorage.removeItem(PKCE);
  if (!pending || pending.state !== params.get('state')) throw new Error('the sign-in answer does not match the request (state)');
  const c = await config();
  const r = await fetch(c.tokenEndpoint, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: params.get('code'), redirect_uri: redirectUri(),
      client_id: c.clientId, code_verifier: pending.verifier }) });
  const t = await r.json();
  if (!r.ok || !t.access_token) throw new Error('sign-in refused: ' + (t.error_description || t.error || r.status));
  sessionStorage.setItem(TOKEN, JSON.stringify({ token: t.access_token, expiresAtMs: Date.now() + 1000 * (t.expires_in || 3600) }));
  history.replaceState(null, '', root + 'console' + pending.back);
}

function token() {
  const t = JSON.parse(sessionStorage.getItem(TOKEN) || 'null');
  return t && t.expiresAtMs > Date.now() + 5000 ? t.token : null;
}
function claims() {
  try { return JSON.parse(atob(token().split('.')[1].replace(/-/g, '+').replace(/_/g, '/'))); } catch { return {}; }
}

// ---- the API ----
async function api(method, path, body) {
  if (!token()) { await signIn(); throw new Error('signing in'); }
  const headers = { Authorization: 'Bearer ' + token() };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(root + path.replace(/^\//, ''), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status === 401) { sessionStorage.removeItem(TOKEN); await signIn(); throw new Error('signing in'); }
  const text = await r.text();
  let json = null;
  try { json = text ? JSON.parse(text) : null; } catch { json = null; }
  return { status: r.status, ok: r.ok, json, text };
}
async function all(path) {
  const items = [];
  let cursor = '';
  do {
    const r = await api('GET', path + (cursor ? (path.includes('?') ? '&' : '?') + 'cursor=' + encodeURIComponent(cursor) : ''));
    if (!r.ok) throw new Error(path + ': ' + (r.json?.message || r.status));
    items.push(...r.json.items);
    cursor = r.json.nextCursor || '';
  } while (cursor);
  return items;
}
function failure(e) { show(el('p', { class: 'errors', id: 'page-error' }, String(e.message || e))); }

// ---- pages ----
/** A run's capacity as the runs list gives it: at least that rate when the run stopped below the knee. */
const capacityText = (r) => (r.capacityQps === undefined ? '–' : `${r.capacityReached ? '' : '≥ '}${num(r.capacityQps)} QPS`);

/**
 * The runs page: the team's runs across its plans, newest first (GET /runs: one query per page whatever the number
 * of plans), 50 at a time with older ones on demand.
 */
async function runsPage() {
  show(el('h1', {}, 'Runs'), el('p', { class: 'muted' }, 'Loading…'));
  const [plans, first] = await Promise.all([all('/plans'), api('GET', '/runs?limit=50')]);
  if (!first.ok) throw new Error('/runs: ' + (first.json?.message || first.status));
  const names = Object.fromEntries(plans.map((p) => [p.planId, p.name]));
  const row = (r) => el('tr', { 'data-run': r.runId },
    el('td', {}, link('#/runs/' + r.runId, r.runId)), el('td', {}, link('#/plans/' + r.planId, names[r.planId] || r.planId)),
    el('td', { class: r.status }, r.status), el('td', { class: r.outcome || '' }, r.outcome || ''),
    el('td', { class: 'capacity' }, capacityText(r)), el('td', {}, fmtTime(r.createdAtMs)));
  const body = el('tbody', {}, first.json.items.map(row));
  const more = el('p');
  const older = (cursor) => {
    more.replaceChildren(cursor ? el('button', { type: 'button', id: 'older-runs', onclick: async () => {
      const r = await api('GET', '/runs?limit=50&cursor=' + encodeURIComponent(cursor));
      if (!r.ok) { more.replaceChildren(el('span', { class: 'errors' }, r.json?.message || String(r.status))); return; }
      body.append(...r.json.items.map(row));
      older(r.json.nextCursor);
    } }, 'Older runs') : '');
  };
  older(first.json.nextCursor);
  show(el('h1', {}, 'Runs'),
    first.json.items.length ? el('div', { class: 'table-wrap' }, el('table', { id: 'runs' },
      el('thead', {}, el('tr', {}, ['Run', 'Plan', 'Status', 'Outcome', 'Capacity', 'Created'].map((h) => el('th', {}, h)))), body))
      : el('p', { class: 'muted' }, 'No runs yet. ', link('#/plans', 'Start one from a plan.')),
    more);
}

/**
 * The live charts' data in the shape RichterCharts.draw takes (the report's charts, run-charts.js): one point per
 * refresh from the run's live load, and the run's events and step starts as marks. The live load carries p99 only.
 */
function liveChartData(samples, events) {
  const marks = [];
  samples.forEach((h, i) => {
    if (i === 0 || samples[i - 1].step !== h.step) marks.push({ t: h.atMs / 1000, kind: 'step', label: h.step, state: '' });
  });
  for (const e of events) {
    if (e.kind === 'verdict-changed') {
      const state = (e.name.split('\u2192')[1] || '').trim();
      marks.push({ t: e.atMs / 1000, kind: 'verdict', label: e.module + ' ' + state, state });
    } else if (e.kind === 'alert-fired' || e.kind === 'alert-resolved') {
      marks.push({ t: e.atMs / 1000, kind: 'alert', label: e.name + (e.kind === 'alert-fired' ? ' fired on ' : ' resolved on ') + e.module, state: '' });
    } else if (e.kind === 'abort') {
      marks.push({ t: e.atMs / 1000, kind: 'abort', label: 'abort: ' + e.detail, state: 'ABORT' });
    }
  }
  marks.sort((a, b) => a.t - b.t);
  const none = samples.map(() => null);
  return { ts: { t: samples.map((h) => h.atMs / 1000), target: samples.map((h) => h.targetQps), achieved: samples.map((h) => h.qps),
    achievedCounts: 'completed', p50: none, p90: none, p99: samples.map((h) => h.p99Ms ?? null),
    errors: samples.map((h) => (h.seconds > 0 ? h.errors / h.seconds : 0)), kinds: [], marks } };
}

function chartBox() {
  return el('div', { class: 'charts' }, el('div', { class: 'chart', id: 'chart-qps' }), el('div', { class: 'chart', id: 'chart-latency' }),
    el('div', { class: 'chart', id: 'chart-errors' }), el('div', { class: 'chart', id: 'chart-hdr' }));
}

async function runPage(runId) {
  const samples = [];
  let abortPressedAtMs = 0;
  let reportDrawn = false;
  // the parts a person types into stay put between refreshes; only the figures around them are redrawn
  const head = el('div');
  const figures = el('div');
  const abortBox = el('div', { class: 'actions' });
  const abortState = el('span', { id: 'abort-state', class: 'bad' });
  const reason = el('input', { id: 'abort-reason', placeholder: 'why (recorded in the audit log)', maxlength: 500 });
  const abortError = el('span', { class: 'errors' });
  const button = el('button', { id: 'abort', class: 'danger', type: 'button', onclick: async () => {
    if (!reason.value.trim()) { reason.classList.add('invalid'); reason.focus(); return; }
    button.disabled = true;
    abortPressedAtMs = Date.now();
    const a = await api('POST', '/runs/' + encodeURIComponent(runId) + '/abort', { reason: reason.value.trim() });
    if (!a.ok) { button.disabled = false; abortError.textContent = a.json?.message || String(a.status); }
  } }, 'Abort');
  const reportBox = el('div', { id: 'report' });
  const charts = chartBox();
  // a refresh that fails is said here and retried: the page, and its Abort button, stay
  const refreshError = el('p', { class: 'errors', id: 'refresh-error' });
  show(head, refreshError, charts, figures);
  const render = async () => {
    const r = await api('GET', '/runs/' + encodeURIComponent(runId));
    if (r.status === 404) { failure(new Error(r.json?.message || 'run ' + runId + ': 404')); return false; }
    if (!r.ok) throw new Error(r.json?.message || 'GET /runs/' + runId + ': ' + r.status);
    const s = r.json;
    const run = s.run;
    const live = s.current?.live;
    if (live && (!samples.length || samples[samples.length - 1].atMs !== live.atMs)) {
      samples.push({ ...live, targetQps: s.current.targetQps, step: `${s.current.stage} ${s.current.stepIndex + 1}` });
    }
    const ended = !s.current && !['RUNNING', 'STARTING', 'SCHEDULED', 'PENDING'].includes(run.status);
    const ev = await api('GET', '/runs/' + encodeURIComponent(runId) + '/events');
    const card = (k, v, cls, id) => el('div', { class: 'card' }, el('div', { class: 'k' }, k), el('div', { class: 'v ' + (cls || ''), id }, v));
    if (s.abort) {
      abortState.textContent = 'Abort requested: ' + s.abort.reason + (s.abort.latencyMs !== undefined
        ? ` — the load stopped ${s.abort.latencyMs} ms after the flag`
        : ended ? ' — the run ended; no worker was sending when the flag was set' : ' — waiting for the workers to stop');
      abortBox.replaceChildren(abortState);
    } else if (ended) {
      abortBox.replaceChildren();
    } else if (!abortBox.contains(button)) {
      abortBox.replaceChildren(reason, button, abortError);
    }
    const steps = s.steps.map((st) => el('tr', {}, el('td', {}, st.stage + ' ' + (st.stepIndex + 1)), el('td', {}, num(st.targetQps)),
      el('td', {}, num(st.achievedQps)), el('td', {}, st.sent), el('td', {}, st.errors), el('td', {}, num(st.p99Ms, 0)), el('td', {}, st.workers)));
    head.replaceChildren(
      el('h1', {}, 'Run ', el('span', { id: 'run-id' }, runId)),
      el('p', {}, link('#/plans/' + run.planId, 'plan ' + run.planId), ' · created ', fmtTime(run.createdAtMs),
        s.reportReady ? [' · ', link('#/compare?run=' + encodeURIComponent(runId), 'compare with the previous run')] : ''),
      el('div', { class: 'cards' },
        card('Status', run.status, run.status, 'run-status'),
        card('Outcome', run.outcome || '—', run.outcome, 'run-outcome'),
        card('Step', s.current ? `${s.current.stage} ${s.current.stepIndex + 1}` : '—', '', 'run-step'),
        card('Target QPS', num(s.current?.targetQps), '', 'target-qps'),
        card('Achieved QPS', num(live?.qps), '', 'achieved-qps'),
        card('p99 ms', num(live?.p99Ms, 0), '', 'p99'),
        card('Errors %', num(live?.errorRatePct, 2), '', 'error-rate')),
      abortBox);
    figures.replaceChildren(
      el('h2', {}, 'Verdicts'),
      s.verdicts.length ? el('table', { id: 'verdicts' }, el('tbody', {}, s.verdicts.map((v) => el('tr', {},
        el('td', {}, v.module), el('td', { class: v.state }, v.state), el('td', {}, v.reason || ''))))) : el('p', { class: 'muted' }, 'No verdict yet.'),
      el('h2', {}, 'Steps'),
      el('div', { class: 'table-wrap' }, el('table', { id: 'steps' }, el('thead', {}, el('tr', {},
        ['Step', 'Target QPS', 'Achieved', 'Sent', 'Errors', 'p99 ms', 'Workers'].map((h) => el('th', {}, h)))), el('tbody', {}, steps))),
      el('h2', {}, 'Events'),
      el('ul', { class: 'events', id: 'events' }, (ev.ok ? ev.json.items : []).slice().reverse().map((e) =>
        el('li', {}, fmtTime(e.atMs), ' ', el('b', {}, e.kind), ' ', e.module, ' ', e.name, ' — ', e.detail))),
      ...(s.reportReady ? [el('h2', {}, 'Report'), reportBox] : []));
    if (s.reportReady && !reportDrawn) {
      // once the report is stored, the charts are the report's own figures, as its HTML draws them
      reportDrawn = true;
      const r = await api('GET', '/runs/' + encodeURIComponent(runId) + '/report');
      reportBox.replaceChildren(reportHeadline(runId, r));
      if (r.ok) {
        const d = RichterCharts.fromReport(r.json);
        if (d.ts) RichterCharts.draw(d, charts);
        else charts.prepend(el('p', { class: 'muted', id: 'charts-note' }, r.json.timeSeries?.note || 'The report holds no time series.'));
      }
    } else if (!reportDrawn && samples.length > 1) {
      RichterCharts.draw(liveChartData(samples, ev.ok ? ev.json.items : []), charts);
    }
    return !ended || (!s.reportReady && !s.failureReason) || (s.abort && s.abort.latencyMs === undefined && abortPressedAtMs > 0);
  };
  const tick = async () => {
    let again = true;
    try {
      again = await render();
      refreshError.textContent = '';
    } catch (e) {
      refreshError.textContent = `The last refresh failed (${e.message || e}) at ${fmtTime(Date.now())}; retrying.`;
    }
    if (again && location.hash === '#/runs/' + runId) timer = setTimeout(tick, LIVE_MS);
  };
  await tick();
}

/**
 * The report's headline (outcome, capacity and where it lies, failure mode, confidence, problems) and its HTML, from
 * the answer of GET /runs/{id}/report.
 */
function reportHeadline(runId, r) {
  if (!r.ok) return el('p', { class: 'errors' }, r.json?.message || String(r.status));
  const rep = r.json;
  const cap = rep.capacity;
  const download = el('button', { type: 'button', id: 'report-html', onclick: async () => {
    // the HTML report needs the token: fetched here, then saved as a file the browser opens on its own
    const h = await api('GET', '/runs/' + encodeURIComponent(runId) + '/report?format=html');
    const a = el('a', { href: URL.createObjectURL(new Blob([h.text], { type: 'text/html' })), download: runId + '-report.html' });
    document.body.append(a);
    a.click();
    a.remove();
  } }, 'Download the HTML report');
  return el('div', {},
    el('table', { id: 'headline' }, el('tbody', {},
      el('tr', {}, el('th', {}, 'outcome'), el('td', { class: rep.outcome }, rep.outcome, rep.outcomeReason ? ' — ' + rep.outcomeReason : '')),
      cap ? el('tr', {}, el('th', {}, 'capacity'), el('td', { id: 'capacity' }, !cap.measured ? 'not measured: ' + cap.limitedBy
        : `${cap.reached ? '' : '≥ '}${num(cap.maxSustainableQps)} QPS` + (cap.interval ? ` (${cap.interval.text})` : ` (${cap.limitedBy})`))) : '',
      rep.failureMode ? el('tr', {}, el('th', {}, 'failure mode'), el('td', {}, rep.failureMode.kind, rep.failureMode.evidence ? ' — ' + rep.failureMode.evidence : '')) : '',
      rep.confidence ? el('tr', {}, el('th', {}, 'confidence'), el('td', {}, num(rep.confidence.score, 2))) : '',
      el('tr', {}, el('th', {}, 'problems'), el('td', {}, link('#/problems', String((rep.problems ?? []).length)))))),
    el('p', {}, download));
}

function planForm(plan, onSaved) {
  const fields = [];
  const input = (path, label, value, attrs = {}) => {
    const i = el('input', { 'data-path': path, name: path, value: value ?? '', ...attrs });
    const box = el('label', { 'data-field': path }, label, i, el('span', { class: 'field-error' }));
    fields.push(box);
    return box;
  };
  const sc = plan?.scenarios?.[0] ?? {};
  const rq = sc.requests?.[0] ?? {};
  const stepsBox = el('div', { id: 'steps' });
  const addStep = (qps = '', durationS = '') => {
    const i = stepsBox.children.length;
    stepsBox.append(el('div', { class: 'row' }, input(`$.formal.steps[${i}].qps`, `Step ${i + 1} QPS`, qps, { type: 'number', step: 'any' }),
      input(`$.formal.steps[${i}].durationS`, 'seconds', durationS, { type: 'number' })));
  };
  (plan?.formal?.steps ?? [{ qps: 10, durationS: 30 }]).forEach((s) => addStep(s.qps, s.durationS));
  const general = el('p', { class: 'errors', id: 'form-errors' });
  const estimate = el('div', { id: 'draft-estimate' });
  const estimateButton = el('button', { type: 'button', id: 'estimate' }, 'Estimate');
  const form = el('form', { class: 'plan', id: 'plan-form', novalidate: true },
    input('$.name', 'Name', plan?.name ?? ''),
    el('fieldset', {}, el('legend', {}, 'Scenario'),
      el('div', { class: 'row' }, input('$.scenarios[0].service', 'Service', sc.service ?? ''),
        input('$.scenarios[0].requests[0].method', 'Method', rq.method ?? 'GET'),
        input('$.scenarios[0].requests[0].path', 'Path', rq.path ?? '/'))),
    el('fieldset', {}, el('legend', {}, 'Pre-test'),
      el('div', { class: 'row' }, input('$.preTest.qps', 'QPS', plan?.preTest?.qps ?? 1, { type: 'number', step: 'any' }),
        input('$.preTest.durationS', 'seconds', plan?.preTest?.durationS ?? 10, { type: 'number' }))),
    el('fieldset', {}, el('legend', {}, 'Formal steps'), stepsBox,
      el('button', { type: 'button', onclick: () => addStep() }, 'Add a step')),
    el('div', { class: 'actions' }, estimateButton, el('button', { type: 'submit', class: 'primary', id: 'save' }, plan ? 'Save' : 'Create')),
    general, estimate);
  const value = (path) => form.querySelector(`[data-path="${CSS.escape(path)}"]`).value;
  const numOr = (v) => (v === '' || Number.isNaN(Number(v)) ? v : Number(v));
  const body = () => {
    const service = value('$.scenarios[0].service');
    const b = { ...(plan ? stripServerFields(plan) : {}), name: value('$.name'),
      scenarios: [{ ...(sc.name ? sc : { name: 'main' }), service, requests: [{ ...rq, method: value('$.scenarios[0].requests[0].method'), path: value('$.scenarios[0].requests[0].path') }] }],
      preTest: { ...(plan?.preTest ?? {}), qps: numOr(value('$.preTest.qps')), durationS: numOr(value('$.preTest.durationS')) },
      formal: { ...(plan?.formal ?? {}), steps: [...stepsBox.children].map((_, i) => ({ qps: numOr(value(`$.formal.steps[${i}].qps`)), durationS: numOr(value(`$.formal.steps[${i}].durationS`)) })) } };
    if (!plan) b.coreModules = [service];
    return b;
  };
  const clearErrors = () => {
    fields.forEach((f) => { f.querySelector('.field-error').textContent = ''; f.querySelector('input').classList.remove('invalid'); });
    general.textContent = '';
  };
  estimateButton.addEventListener('click', async () => {
    clearErrors();
    const r = await api('POST', '/plans/estimate', body());
    if (r.ok) estimate.replaceChildren(estimateCards(r.json)); else { estimate.replaceChildren(); showErrors(r); }
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    clearErrors();
    const r = plan ? await api('PUT', '/plans/' + plan.planId, body()) : await api('POST', '/plans', body());
    if (r.ok) { onSaved(r.json); return; }
    showErrors(r);
  });
  function showErrors(r) {
    const unplaced = [];
    for (const err of r.json?.errors ?? []) {
      const box = fields.find((f) => err.path === f.dataset.field || err.path.startsWith(f.dataset.field + '.') || err.path.startsWith(f.dataset.field + '['));
      if (box) { box.querySelector('.field-error').textContent = err.reason; box.querySelector('input').classList.add('invalid'); } else unplaced.push(`${err.path}: ${err.reason}`);
    }
    general.textContent = [r.json?.message && !(r.json?.errors?.length) ? r.json.message : '', ...unplaced].filter(Boolean).join('; ');
  }
  return form;
}
function stripServerFields(p) {
  const { planId, teamId, version, createdAtMs, updatedAtMs, ...rest } = p;
  return rest;
}

async function plansPage() {
  const plans = await all('/plans');
  show(el('h1', {}, 'Plans'), el('p', {}, link('#/plans/new', 'New plan')),
    el('div', { class: 'table-wrap' }, el('table', { id: 'plans' }, el('thead', {}, el('tr', {}, ['Plan', 'Name', 'Version', 'Updated'].map((h) => el('th', {}, h)))),
      el('tbody', {}, plans.map((p) => el('tr', {}, el('td', {}, link('#/plans/' + p.planId, p.planId)), el('td', {}, p.name),
        el('td', {}, p.version), el('td', {}, fmtTime(p.updatedAtMs))))))));
}

async function estimateView(planId) {
  const r = await api('GET', '/plans/' + planId + '/estimate');
  if (!r.ok) return el('p', { class: 'errors' }, r.json?.message || String(r.status));
  return estimateCards(r.json);
}

/** The estimate's figures (duration, executions, peak Lambdas, cost) and its limit violations, each at its path. */
function estimateCards(e) {
  const card = (k, v) => el('div', { class: 'card' }, el('div', { class: 'k' }, k), el('div', { class: 'v' }, v));
  const usd = Object.values(e.costUsd ?? {}).find((v) => typeof v === 'number');
  return el('div', { id: 'plan-estimate' }, el('h2', {}, 'Estimate'),
    el('div', { class: 'cards' }, card('Duration', e.expectedDurationS < 120 ? `${Math.round(e.expectedDurationS)} s` : `${Math.round(e.expectedDurationS / 60)} min`),
      card('Executions', e.executions.total), card('Peak Lambdas', e.peakConcurrentLambdas ?? e.peakConcurrentWorkers),
      e.lambdaConcurrencyLeft !== undefined ? card('Lambdas left', `${e.lambdaConcurrencyLeft} (${e.lambdaReserve} kept)`) : '',
      e.inFlight ? card('In flight per worker', `${e.inFlight.inFlightCap} at ${num(e.inFlight.perWorkerQps, 0)} QPS`) : '',
      card('USD per 10⁶ requests', num(e.usdPerMillionRequests, 4)),
      e.costUsd?.total !== undefined ? card('Cost USD', num(e.costUsd.total, 2)) : (usd !== undefined ? card('Cost USD', num(usd, 2)) : '')),
    e.violations.length ? el('ul', { class: 'errors', id: 'violations' }, e.violations.map((v) => el('li', {}, `${v.path}: ${v.reason}`)))
      : el('p', { class: 'ok' }, 'Within every limit.'));
}

async function planPage(planId) {
  if (planId === 'new') {
    show(el('h1', {}, 'New plan'), planForm(null, (p) => { location.hash = '#/plans/' + p.planId; }));
    return;
  }
  const r = await api('GET', '/plans/' + planId);
  if (!r.ok) { failure(new Error(r.json?.message || String(r.status))); return; }
  const plan = r.json;
  const startAt = el('input', { id: 'start-at', type: 'datetime-local' });
  const out = el('p', { id: 'start-result' });
  const start = async (when) => {
    const s = await api('POST', '/plans/' + planId + '/runs', when ? { startAt: when } : {});
    if (s.ok) { location.hash = '#/runs/' + s.json.runId; return; }
    out.className = 'errors';
    out.textContent = s.json?.message || String(s.status);
  };
  const runs = await all('/plans/' + planId + '/runs');
  show(el('h1', {}, plan.name, ' ', el('span', { class: 'muted' }, `v${plan.version}`)),
    el('div', { class: 'actions' },
      el('button', { id: 'start-now', class: 'primary', type: 'button', onclick: () => start() }, 'Start now'),
      startAt, el('button', { id: 'schedule', type: 'button', onclick: () => startAt.value && start(new Date(startAt.value).toISOString().replace(/\.\d+Z$/, 'Z')) }, 'Schedule')),
    out, await estimateView(planId),
    el('h2', {}, 'Runs'),
    el('ul', {}, runs.sort((a, b) => b.createdAtMs - a.createdAtMs).map((x) => el('li', {}, link('#/runs/' + x.runId, x.runId), ' ', x.status,
      x.status === 'SCHEDULED' ? el('button', { type: 'button', onclick: async () => { await api('DELETE', '/runs/' + x.runId); route(); } }, 'Cancel') : ''))),
    el('h2', {}, 'Edit'), planForm(plan, () => route()));
}

async function linksPage(params) {
  const r = await api('GET', '/links/entries');
  if (!r.ok) { failure(new Error(r.json?.message || String(r.status))); return; }
  const entries = r.json.entries;
  const entry = params.get('entry');
  const picker = el('ul', { id: 'entries' }, entries.map((e) => el('li', {},
    e === entry ? el('b', {}, e) : link('#/links?entry=' + encodeURIComponent(e), e), ' ', el('span', { class: 'muted' }, (r.json.samples[e] ?? []).join(', ')))));
  if (!entry) {
    show(el('h1', {}, 'Links'), el('p', { class: 'muted' }, entries.length ? 'Pick an entry to see the tree below it and its exits.' : 'No entries yet: ingest traces (POST /traces).'), picker);
    return;
  }
  const q = encodeURIComponent(entry);
  const [tree, exits, mocks] = await Promise.all([api('GET', '/links/tree?node=' + q), api('GET', '/links/exits?entry=' + q), api('GET', '/safety/mocks')]);
  if (!tree.ok) { failure(new Error(tree.json?.message || String(tree.status))); return; }
  const mocked = new Set((mocks.ok ? mocks.json.mocks : []).map((m) => m.exit));
  const exitRows = (exits.ok ? exits.json.exits : []).map((x) => {
    const toggle = el('button', { type: 'button', class: x.mockRequired ? '' : 'primary', 'data-exit': x.toNode, onclick: async () => {
      toggle.disabled = true;
      const m = await api('PUT', '/links/exits/mock', { from: x.fromNode, to: x.toNode, mockRequired: !x.mockRequired });
      if (!m.ok) { toggle.disabled = false; toggle.after(el('span', { class: 'errors' }, ' ' + (m.json?.message || m.status))); return; }
      route();
    } }, x.mockRequired ? 'Clear the mark' : 'Mark mock-required');
    const hasMock = mocked.has(x.toNode) || mocked.has(x.toService);
    return el('tr', { 'data-exit-row': x.toNode }, el('td', {}, x.fromNode), el('td', {}, x.toNode), el('td', {}, x.callCount),
      el('td', {}, fmtTime(x.lastSeenEpochMs)), el('td', { class: x.mockRequired ? 'warn' : 'muted', 'data-mark': String(x.mockRequired) }, x.mockRequired ? 'mock required' : 'real call'),
      el('td', { class: hasMock ? 'ok' : (x.mockRequired ? 'bad' : 'muted') }, hasMock ? 'mock configured' : 'no mock'), el('td', {}, toggle));
  });
  show(el('h1', {}, 'Links below ', el('span', { id: 'entry' }, entry)), treeGraph(tree.json),
    el('h2', {}, 'Nodes'),
    el('div', { class: 'table-wrap' }, el('table', { id: 'tree' }, el('thead', {}, el('tr', {}, ['Node', 'Depth', 'Calls from the entry', 'Last seen'].map((h) => el('th', {}, h)))),
      el('tbody', {}, tree.json.nodes.map((n) => el('tr', {}, el('td', {}, n.node), el('td', {}, n.depth), el('td', {}, n.callCount), el('td', {}, fmtTime(n.lastSeenEpochMs))))))),
    el('h2', {}, 'Exits'),
    exitRows.length ? el('div', { class: 'table-wrap' }, el('table', { id: 'exits' }, el('thead', {}, el('tr', {},
      ['From', 'To', 'Calls', 'Last seen', 'Mark', 'Mock', ''].map((h) => el('th', {}, h)))), el('tbody', {}, exitRows)))
      : el('p', { class: 'muted' }, 'No exit: every call below this entry stays inside the services you registered.'),
    el('h2', {}, 'Entries'), picker);
}

/** The tree as columns by depth, one box per node, a line per edge labelled with its calls. */
function treeGraph(t) {
  const NS = 'http://www.w3.org/2000/svg';
  const byDepth = new Map([[0, [t.root]]]);
  t.nodes.forEach((n) => { if (!byDepth.has(n.depth)) byDepth.set(n.depth, []); byDepth.get(n.depth).push(n.node); });
  const colW = 260; const rowH = 46; const boxW = 220; const boxH = 30;
  const rows = Math.max(...[...byDepth.values()].map((v) => v.length));
  const at = new Map();
  [...byDepth.entries()].forEach(([d, names]) => names.forEach((n, i) => at.set(n, { x: 10 + d * colW, y: 10 + i * rowH })));
  const svg = document.createElementNS(NS, 'svg');
  svg.setAttribute('id', 'tree-graph');
  svg.setAttribute('class', 'graph');
  svg.setAttribute('viewBox', `0 0 ${20 + byDepth.size * colW} ${20 + rows * rowH}`);
  const add = (tag, attrs, text) => {
    const e = document.createElementNS(NS, tag);
    Object.entries(attrs).forEach(([k, v]) => e.setAttribute(k, v));
    if (text !== undefined) e.textContent = text;
    svg.append(e);
    return e;
  };
  t.edges.forEach((e) => {
    const a = at.get(e.from); const b = at.get(e.to);
    if (!a || !b) return;
    add('line', { x1: a.x + boxW, y1: a.y + boxH / 2, x2: b.x, y2: b.y + boxH / 2, class: 'edge' });
    add('text', { x: (a.x + boxW + b.x) / 2, y: (a.y + b.y) / 2 + boxH / 2 - 3, class: 'calls' }, String(e.callCount));
  });
  at.forEach((p, name) => {
    add('rect', { x: p.x, y: p.y, width: boxW, height: boxH, rx: 4, class: name === t.root ? 'node root' : 'node' });
    add('text', { x: p.x + 6, y: p.y + 19, class: 'label' }, name.length > 32 ? name.slice(0, 31) + '…' : name);
  });
  return el('div', { class: 'graph-wrap' }, svg);
}

/**
 * The shadow pre-check results (check shadow-precheck: each table's shadow exists, matches and accepts a write, as the
 * service's own database answered the agent extension) of the newest run whose report holds any, with that run's id.
 */
async function shadowPreChecks() {
  const newest = await api('GET', '/runs?limit=10');
  for (const run of newest.ok ? newest.json.items : []) {
    const r = await api('GET', '/runs/' + encodeURIComponent(run.runId) + '/report');
    if (!r.ok) continue;
    const found = [...(r.json.staticChecks ?? []), ...(r.json.dynamicChecks ?? [])].filter((c) => c.name === 'shadow-precheck');
    if (found.length) return { runId: run.runId, results: found };
  }
  return { runId: '', results: [] };
}

async function servicesPage() {
  const services = await all('/services');
  const [details, pre] = await Promise.all([
    Promise.all(services.map((sv) => api('GET', '/services/' + encodeURIComponent(sv.name)))), shadowPreChecks()]);
  const rows = services.map((sv, i) => {
    const d = details[i].ok ? details[i].json : sv;
    const declared = (d.datastores ?? []).map((x) => `${x.kind} ${x.production ?? x.name ?? ''}${x.shadow ? ' → ' + x.shadow : ''}`);
    const discovered = (d.discovered ?? []).map((x) => `${x.kind} ${x.name}${x.writes ? ' (writes)' : ''}`);
    const loadedAt = d.ownership?.isolationLoadedAtMs;
    const own = pre.results.filter((c) => c.subject.startsWith(sv.name + ' '));
    return el('tr', { 'data-service': sv.name }, el('td', {}, sv.name), el('td', {}, sv.baseUrl),
      el('td', {}, declared.join(', ') || '–'), el('td', {}, discovered.join(', ') || '–'),
      el('td', { class: 'pre-check' }, own.length ? own.map((c) => el('div', { class: c.outcome, title: c.evidence },
        c.outcome + ' ' + c.subject.slice(sv.name.length + 1))) : '–'),
      el('td', { class: loadedAt ? 'ok' : 'warn' }, loadedAt ? 'its extension loaded the isolation document at ' + fmtTime(loadedAt)
        : 'no extension has loaded the isolation document in 24 h: the run proves isolation from its spans'));
  });
  const unowned = pre.results.filter((c) => !services.some((sv) => c.subject.startsWith(sv.name + ' ')));
  show(el('h1', {}, 'Services'),
    el('p', { class: 'muted', id: 'pre-check-source' }, pre.runId
      ? ['Shadow pre-check: as run ', link('#/runs/' + pre.runId, pre.runId), ' found it in the services\' spans.']
      : 'Shadow pre-check: no run of this team has checked its shadow tables yet.'),
    ...unowned.map((c) => el('p', { class: c.outcome }, c.outcome + ' ' + c.subject + ': ' + c.evidence)),
    el('div', { class: 'table-wrap' }, el('table', { id: 'services' },
      el('thead', {}, el('tr', {}, ['Service', 'Base URL', 'Declared datastores', 'Discovered in traces', 'Shadow pre-check', 'Isolation']
        .map((h) => el('th', {}, h)))),
      el('tbody', {}, rows))));
}

async function problemsPage() {
  const problems = await all('/problems');
  const rows = problems.map((p) => {
    const status = el('select', { 'data-field': 'status' }, ['open', 'acknowledged', 'resolved'].map((v) => {
      const o = el('option', { value: v }, v);
      if (v === p.status) o.selected = true;
      return o;
    }));
    const owner = el('input', { 'data-field': 'owner', value: p.owner ?? '', maxlength: 200 });
    const note = el('input', { 'data-field': 'note', value: p.note ?? '', maxlength: 2000 });
    const out = el('span');
    const save = el('button', { type: 'button', onclick: async () => {
      save.disabled = true;
      const r = await api('PATCH', '/problems/' + encodeURIComponent(p.id), { status: status.value, owner: owner.value, note: note.value });
      save.disabled = false;
      out.className = r.ok ? 'ok' : 'errors';
      out.textContent = r.ok ? ' saved' : ' ' + (r.json?.errors?.map((e) => `${e.path}: ${e.reason}`).join('; ') || r.json?.message || r.status);
    } }, 'Save');
    return el('tr', { 'data-problem': p.id }, el('td', { class: p.severity }, p.severity), el('td', {}, p.kind), el('td', {}, p.subject),
      el('td', {}, link('#/runs/' + p.lastRunId, `${p.runsSeen} run${p.runsSeen === 1 ? '' : 's'}`)), el('td', {}, status), el('td', {}, owner),
      el('td', {}, note), el('td', {}, save, out));
  });
  show(el('h1', {}, 'Problems'), problems.length ? el('div', { class: 'table-wrap' }, el('table', { id: 'problems' },
    el('thead', {}, el('tr', {}, ['', 'Kind', 'Subject', 'Seen', 'Status', 'Owner', 'Note', ''].map((h) => el('th', {}, h)))), el('tbody', {}, rows)))
    : el('p', { class: 'muted' }, 'No followed problems: a report lists them, and they are followed across the runs of their plan.'));
}

async function comparePage(params) {
  const runId = params.get('run');
  const against = params.get('with') || 'previous';
  if (!runId) { show(el('h1', {}, 'Compare'), el('p', { class: 'muted' }, 'Open a finished run and follow “compare with the previous run”.')); return; }
  const r = await api('GET', '/runs/' + encodeURIComponent(runId) + '/compare?with=' + encodeURIComponent(against));
  if (!r.ok) { show(el('h1', {}, 'Compare'), el('p', { class: 'errors', id: 'page-error' }, r.json?.message || String(r.status))); return; }
  const c = r.json;
  const cell = (x, digits) => (typeof x === 'number' ? num(x, digits)
    : x && typeof x === 'object' ? Object.entries(x).map(([k, y]) => `${k}: ${y}`).join(', ') : (x ?? '–'));
  const pair = (v, digits) => [el('td', {}, cell(v.run, digits)), el('td', {}, cell(v.baseline, digits))];
  const whole = Object.entries(c.whole).filter(([, v]) => v && typeof v === 'object' && 'run' in v)
    .map(([k, v]) => el('tr', {}, el('th', {}, k), ...pair(v, 2)));
  const steps = c.steps.map((st) => el('tr', { class: st.regressions.length ? 'regressed' : '' },
    el('td', {}, `${st.stage} ${st.stepIndex + 1}`), el('td', {}, num(st.targetQps)), ...pair(st.achievedQps, 1), ...pair(st.p99Ms, 0),
    ...pair(st.errorRatePct, 2), el('td', { class: 'bad' }, st.regressions.join('; '))));
  show(el('h1', {}, 'Compare'),
    el('p', {}, link('#/runs/' + c.runId, c.runId), ' against ', link('#/runs/' + c.baselineRunId, c.baselineRunId)),
    c.regressed ? el('ul', { class: 'errors', id: 'regressions' }, c.regressions.map((x) => el('li', {}, x))) : el('p', { class: 'ok', id: 'regressions' }, 'No regression.'),
    el('div', { class: 'table-wrap' }, el('table', { id: 'whole' }, el('thead', {}, el('tr', {}, el('th', {}, ''), el('th', {}, 'this run'), el('th', {}, 'baseline'))), el('tbody', {}, whole))),
    el('h2', {}, 'Steps'),
    el('div', { class: 'table-wrap' }, el('table', { id: 'compare-steps' }, el('thead', {}, el('tr', {},
      ['Step', 'Target', 'Achieved', 'baseline', 'p99 ms', 'baseline', 'Errors %', 'baseline', 'Regression'].map((h) => el('th', {}, h)))), el('tbody', {}, steps))),
    c.unmatched.length ? el('p', { class: 'muted' }, 'Only in one run: ' + c.unmatched.join('; ')) : '');
}

// ---- routing ----
async function route() {
  clearTimeout(timer);
  const [path, query] = (location.hash.replace(/^#/, '') || '/runs').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  const params = new URLSearchParams(query || '');
  document.querySelectorAll('#nav a').forEach((a) => a.classList.toggle('active', a.dataset.page === parts[0]));
  try {
    if (parts[0] === 'runs' && parts[1]) await runPage(parts[1]);
    else if (parts[0] === 'plans' && parts[1]) await planPage(parts[1]);
    else if (parts[0] === 'plans') await plansPage();
    else if (parts[0] === 'links') await linksPage(params);
    else if (parts[0] === 'services') await servicesPage();
    else if (parts[0] === 'problems') await problemsPage();
    else if (parts[0] === 'compare') await comparePage(params);
    else await runsPage();
  } catch (e) {
    if (e.message !== 'signing in') failure(e);
  }
}

async function start() {
  const params = new URLSearchParams(location.search);
  if (params.has('code')) {
    try { await finishSignIn(params); } catch (e) { failure(e); return; }
  }
  if (!token()) { await signIn(); return; }
  const c = claims();
  document.getElementById('who').textContent = `${c.sub ?? ''} · team ${c.team ?? ''}`;
  const out = document.getElementById('sign-out');
  out.hidden = false;
  out.addEventListener('click', () => { sessionStorage.removeItem(TOKEN); location.assign(root + 'console'); });
  window.addEventListener('hashchange', route);
  await route();
}
start();
