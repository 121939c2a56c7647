/*
 * Richter's run charts, drawn with uPlot: the HTML report inlines this script and the console serves it, so a run's
 * charts read the same in both. RichterCharts.fromReport(r) takes {timeSeries, latencyCurves} as a report's JSON
 * document holds them (TimeSeries, LatencyCurves) and gives the charts' data; RichterCharts.draw(d, root) draws into root's elements #chart-qps, #chart-latency,
 * #chart-errors and #chart-hdr (each optional) from d = {ts?: {t: [epoch s], target, achieved, achievedCounts, p50,
 * p90, p99, errors: [per second], kinds?: [{label, values}], marks?: [{t, kind, label, state}]}, curves?: {x, series:
 * [{label, values}]}}, replacing what it drew there before, and returns how many charts root holds.
 */
var RichterCharts = (function () {
  /** Legend names of the window error kinds (WindowAttributes.ERROR_KINDS). */
  var KINDS = { http4xx: 'HTTP 4xx', http5xx: 'HTTP 5xx', timeouts: 'timeouts', checkFailed: 'check failed', connectErrors: 'connect errors',
                dropped: 'dropped', late: 'late' };
  var colours = ['#2563eb', '#ea580c', '#16a34a', '#dc2626', '#7c3aed', '#0891b2', '#a16207', '#db2777'];
  function marks(list, dpr) {
    return { hooks: { draw: [function (u) {
      var c = u.ctx, top = u.bbox.top, h = u.bbox.height, v = 0;
      c.save(); c.font = (11 * dpr) + 'px system-ui, sans-serif'; c.textAlign = 'left'; c.textBaseline = 'alphabetic';
      list.forEach(function (m) {
        var x = Math.round(u.valToPos(m.t, 'x', true));
        if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) { return; }
        var step = m.kind === 'step';
        c.strokeStyle = c.fillStyle = step ? '#6b7280' : m.kind === 'alert' ? '#7c3aed' : m.kind === 'abort' ? '#111827'
            : m.state === 'DAMAGED' ? '#c62828' : m.state === 'SUSPECT' ? '#d97706' : '#15803d';
        c.setLineDash(step ? [5 * dpr, 4 * dpr] : []); c.lineWidth = (step ? 1 : 2) * dpr;
        c.beginPath(); c.moveTo(x, top); c.lineTo(x, top + h); c.stroke();
        var right = x + 4 * dpr + c.measureText(m.label).width > u.bbox.left + u.bbox.width;
        c.textAlign = right ? 'right' : 'left';
        c.fillText(m.label, right ? x - 4 * dpr : x + 4 * dpr, top + (step ? 12 : 26 + 13 * (v++ % 3)) * dpr);
      });
      c.restore();
    }] } };
  }
  function line(label, i, extra) {
    var s = { label: label, stroke: colours[i % colours.length], width: 1.6, points: { show: false } };
    for (var k in (extra || {})) { s[k] = extra[k]; }
    return s;
  }
  function draw(d, root) {
    var W = Math.max(260, Math.min(1150, root.clientWidth - 40));
    var dpr = window.devicePixelRatio || 1;
    function plot(id, title, yLabel, series, data, opts) {
      var el = root.querySelector('#' + id);
      if (!el) { return; }
      el.replaceChildren();
      var o = { title: title, width: W, height: 230, series: [{}].concat(series),
                axes: [{}, { label: yLabel }], cursor: { sync: { key: 'richter' } }, plugins: [],
                scales: { x: { range: function (u, min, max) { var pad = Math.max(1, (max - min) * 0.015);
                                                                return [min - pad, max + pad]; } } } };
      for (var k in (opts || {})) { o[k] = opts[k]; }
      new uPlot(o, data, el);
    }
    if (d.ts) {
      var t = d.ts.t, mk = [marks(d.ts.marks || [], dpr)];
      plot('chart-qps', 'Throughput: target vs achieved (' + d.ts.achievedCounts + ' per second)', 'requests/s',
        [line('target QPS', 7, { dash: [6, 4], paths: uPlot.paths.stepped({ align: 1 }) }), line('achieved QPS', 0, { width: 2 })],
        [t, d.ts.target, d.ts.achieved], { plugins: mk });
      plot('chart-latency', 'Latency from the intended send time', 'ms',
        [line('p50', 2), line('p90', 1), line('p99', 3, { width: 2 })], [t, d.ts.p50, d.ts.p90, d.ts.p99], { plugins: mk });
      var kinds = d.ts.kinds || [];
      var es = kinds.length ? kinds.map(function (k, i) { return line(k.label, i + 3); }) : [line('errors (all kinds)', 3)];
      var ed = kinds.length ? [t].concat(kinds.map(function (k) { return k.values; })) : [t, d.ts.errors];
      plot('chart-errors', 'Errors per second' + (kinds.length ? ' by kind' : ''), 'errors/s', es, ed, { plugins: mk });
    }
    if (d.curves) {
      var pct = function (v) { var p = 100 * (1 - 1 / v); return (Math.round(p * 1000) / 1000) + '%'; };
      plot('chart-hdr', 'Latency by percentile, steps overlaid', 'ms',
        d.curves.series.map(function (s, i) { return line(s.label, i, { width: 2 }); }),
        [d.curves.x].concat(d.curves.series.map(function (s) { return s.values; })),
        { scales: { x: { time: false, distr: 3, log: 10 } },
          series: [{ label: 'percentile', value: function (u, v) { return v == null ? '--' : pct(v); } }]
            .concat(d.curves.series.map(function (s, i) { return line(s.label, i, { width: 2 }); })),
          axes: [{ label: 'percentile', values: function (u, splits) { return splits.map(pct); },
                   splits: function (u) { var s = [], v = 1; while (v <= u.scales.x.max * 1.0001) { s.push(v); v *= 10; }
                                          return s; } }, { label: 'ms' }],
          cursor: {} });
    }
    return root.querySelectorAll('.uplot').length;
  }
  function fromReport(r) {
    var d = {}, ts = r.timeSeries, lc = r.latencyCurves;
    if (ts && ts.epochS && ts.epochS.length) {
      var byKind = ts.errorsByKindPerS || {};
      d.ts = { t: ts.epochS, target: ts.targetQps, achieved: ts.achievedQps, achievedCounts: ts.achievedCounts,
               p50: ts.p50Ms, p90: ts.p90Ms, p99: ts.p99Ms, errors: ts.errorsPerS,
               kinds: Object.keys(byKind).map(function (k) { return { label: KINDS[k] || k, values: byKind[k] }; }),
               marks: (ts.marks || []).map(function (m) { return { t: m.atMs / 1000, kind: m.kind, label: m.label, state: m.state }; }) };
    }
    if (lc && lc.curves && lc.curves.length) {
      // x is 1 / (1 - p): the log axis spreads the tail's nines evenly
      d.curves = { x: lc.percentiles.map(function (p) { return Math.round(1e6 / (1 - p / 100)) / 1e6; }),
                   series: lc.curves.map(function (c) { return { label: c.label, values: c.valuesMs }; }) };
    }
    return d;
  }
  return { draw: draw, fromReport: fromReport };
})();
