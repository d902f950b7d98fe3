// The plots of the service's pages, drawn with uPlot (vendored) from the JSON the page
// embeds (#page-data: what the page's API route returns). Every name reaches the page as
// text: uPlot writes labels with textContent and draws ticks on a canvas, and so does
// this file; nothing here builds markup from data.
//
// window.qsad holds what was drawn, for the browser tests: qsad.data (the embedded
// JSON), qsad.plots (name -> uPlot instance, whose .data are the arrays plotted) and
// qsad.errors (what failed to draw).
(function () {
  "use strict";
  var qsad = window.qsad = {data: null, plots: {}, errors: [], ready: false};
  var COLORS = {faster: "#1b7f3b", slower: "#b3261e", tie: "#6b6b6b", line: "#1f5fa8",
                band: "rgba(31, 95, 168, 0.15)"};
  var PALETTE = ["#1f5fa8", "#b3261e", "#1b7f3b", "#8a4fbf", "#c77c02", "#0f8b8d",
                 "#6b6b6b", "#d4508a", "#5d7f1b", "#3b3bbf", "#a0522d", "#2f4f4f"];

  function seconds(v) {
    if (v == null) return "";
    var units = [["s", 1], ["ms", 1e-3], ["us", 1e-6], ["ns", 1e-9]];
    for (var i = 0; i < units.length; i++) {
      if (Math.abs(v) >= units[i][1] || i === units.length - 1)
        return +(v / units[i][1]).toPrecision(3) + " " + units[i][0];
    }
  }

  function count(v) { return v == null ? "" : Math.round(v).toLocaleString("en"); }

  function size(el, height) {
    return {width: Math.max(320, el.clientWidth || 960), height: height || 320};
  }

  // whiskers from low[i] to high[i] at each x, in each point's colour
  function whiskers(lows, highs, colors) {
    return function (u) {
      var ctx = u.ctx;
      ctx.save();
      ctx.lineWidth = 1.5 * devicePixelRatio;
      for (var i = 0; i < u.data[0].length; i++) {
        if (lows[i] == null || highs[i] == null) continue;
        var x = u.valToPos(u.data[0][i], "x", true);
        ctx.strokeStyle = colors[i] || COLORS.line;
        ctx.beginPath();
        ctx.moveTo(x, u.valToPos(lows[i], "y", true));
        ctx.lineTo(x, u.valToPos(highs[i], "y", true));
        ctx.stroke();
      }
      ctx.restore();
    };
  }

  function labelled(labels) {
    return function (u, ticks) {
      return ticks.map(function (t) { return Number.isInteger(t) && labels[t] != null ? labels[t] : ""; });
    };
  }

  function history(data) {
    var h = data.history;
    var el = document.getElementById("plot-history");
    if (!h || !el || !h.points.length) return;
    var timed = h.measure === "seconds";
    var xs = h.points.map(function (p, i) { return i; });
    var ys = h.points.map(function (p) { return p.value; });
    var lows = h.points.map(function (p) { return timed && p.interval ? p.interval[0] : null; });
    var highs = h.points.map(function (p) { return timed && p.interval ? p.interval[1] : null; });
    // a commit is named where the series reaches it: twenty runs of one commit, one label
    var commits = h.points.map(function (p, i) {
      var commit = (p.commit || "?").slice(0, 7);
      return i === 0 || p.commit !== h.points[i - 1].commit ? commit : "";
    });
    var opts = Object.assign(size(el), {
      scales: {x: {time: false}},
      series: [
        {label: "run"},
        {label: h.measure, stroke: COLORS.line, width: 1.5, points: {show: true, size: 6},
         value: function (u, v) { return timed ? seconds(v) : count(v); }},
        {label: "interval: minimum", stroke: "#9bb8dd", width: 1, dash: [4, 4], points: {show: false},
         value: function (u, v) { return seconds(v); }},
        {label: "median", stroke: "#9bb8dd", width: 1, dash: [4, 4], points: {show: false},
         value: function (u, v) { return seconds(v); }}],
      bands: [{series: [3, 2], fill: COLORS.band}],
      axes: [{values: labelled(commits), label: "runs, oldest first, named by their commit"},
             {size: 70, values: function (u, ticks) { return ticks.map(timed ? seconds : count); }}],
      hooks: {draw: [function (u) {
        var ctx = u.ctx;
        ctx.save();
        h.changes.forEach(function (c) {
          var x = u.valToPos(c.index - 0.5, "x", true);
          ctx.strokeStyle = c.ratio > 1 ? COLORS.slower : COLORS.faster;
          ctx.lineWidth = 2 * devicePixelRatio;
          ctx.setLineDash([6, 4]);
          ctx.beginPath();
          ctx.moveTo(x, u.bbox.top);
          ctx.lineTo(x, u.bbox.top + u.bbox.height);
          ctx.stroke();
        });
        ctx.restore();
      }]}
    });
    qsad.plots.history = new uPlot(opts, [xs, ys, lows, highs], el);
  }

  function compare(data) {
    var el = document.getElementById("plot-compare");
    var rows = (data.rows || []).filter(function (r) { return r.ratio != null; });
    if (!el || !rows.length) return;
    rows.sort(function (a, b) { return a.ratio - b.ratio; });
    var xs = rows.map(function (r, i) { return i; });
    var by = function (verdict) {
      return rows.map(function (r) { return r.verdict === verdict ? r.ratio : null; });
    };
    var lows = rows.map(function (r) { return r.interval ? r.interval[0] : null; });
    var highs = rows.map(function (r) { return r.interval ? r.interval[1] : null; });
    var colors = rows.map(function (r) { return COLORS[r.verdict]; });
    var point = function (label, color) {
      return {label: label, stroke: color, fill: color, paths: function () { return null; },
              points: {show: true, size: 7, fill: color}, value: function (u, v) { return v == null ? "" : v.toFixed(3); }};
    };
    var opts = Object.assign(size(el), {
      scales: {x: {time: false}, y: {distr: 3, log: 2}},
      series: [{label: "result", value: function (u, i) { return i == null ? "" : rows[i].benchmark + " · " + rows[i].backend; }},
               point("faster", COLORS.faster), point("slower", COLORS.slower), point("tie", COLORS.tie)],
      axes: [{values: function () { return []; }, label: "results, by head / base"},
             {size: 60, label: "head / base"}],
      hooks: {draw: [whiskers(lows, highs, colors), function (u) {
        var y = u.valToPos(1, "y", true), ctx = u.ctx;
        ctx.save();
        ctx.strokeStyle = "#999";
        ctx.beginPath();
        ctx.moveTo(u.bbox.left, y);
        ctx.lineTo(u.bbox.left + u.bbox.width, y);
        ctx.stroke();
        ctx.restore();
      }]}
    });
    qsad.plots.compare = new uPlot(opts, [xs, by("faster"), by("slower"), by("tie")], el);
    qsad.plots.compare.rows = rows;
  }

  function ranking(data) {
    var r = data.ranking;
    var el = document.getElementById("plot-ranking");
    if (!r || !r.ranked || !r.ranked.length || !el) return;
    var xs = r.ranked.map(function (row, i) { return i; });
    var ys = r.ranked.map(function (row) { return row.seconds; });
    var names = r.ranked.map(function (row) { return row.backend || "(none)"; });
    var lows = r.ranked.map(function (row) { return row.interval[0]; });
    var highs = r.ranked.map(function (row) { return row.interval[1]; });
    var opts = Object.assign(size(el, 300), {
      scales: {x: {time: false, range: [-0.6, xs.length - 0.4]}, y: {distr: 3, log: 10}},
      series: [{label: "backend", value: function (u, i) { return i == null ? "" : names[i]; }},
               {label: "time", stroke: COLORS.line, fill: COLORS.band, width: 1,
                paths: uPlot.paths.bars({size: [0.6, 80]}), points: {show: false},
                value: function (u, v) { return seconds(v); }}],
      axes: [{values: labelled(names), rotate: 0, size: 40, incrs: [1]},
             {size: 70, values: function (u, ticks) { return ticks.map(seconds); }}],
      hooks: {draw: [whiskers(lows, highs, [])]}
    });
    qsad.plots.ranking = new uPlot(opts, [xs, ys], el);
  }

  function run(data) {
    var el = document.getElementById("plot-run");
    var benchmarks = (data.benchmarks || []).filter(function (b) { return b.ranked.length > 1; });
    if (!el || !benchmarks.length || benchmarks.length > 400) return;
    var backends = [];
    benchmarks.forEach(function (b) {
      b.ranked.forEach(function (r) { if (backends.indexOf(r.backend) < 0) backends.push(r.backend); });
    });
    var xs = benchmarks.map(function (b, i) { return i; });
    var columns = backends.map(function (name) {
      return benchmarks.map(function (b) {
        var found = b.ranked.filter(function (r) { return r.backend === name; })[0];
        return found ? found.ratio : null;
      });
    });
    var series = [{label: "benchmark", value: function (u, i) { return i == null ? "" : benchmarks[i].benchmark; }}];
    backends.forEach(function (name, k) {
      var color = PALETTE[k % PALETTE.length];
      series.push({label: name || "(none)", stroke: color, paths: function () { return null; },
                   points: {show: true, size: 6, fill: color},
                   value: function (u, v) { return v == null ? "" : v.toFixed(2) + "x"; }});
    });
    var opts = Object.assign(size(el, 280), {
      scales: {x: {time: false}, y: {distr: 3, log: 2}},
      series: series,
      axes: [{values: function () { return []; }, label: "benchmarks of this run"},
             {size: 60, label: "time / the benchmark's fastest"}]
    });
    qsad.plots.run = new uPlot(opts, [xs].concat(columns), el);
  }

  // a cell's shade: green below 1 (faster than the baseline or the best), red above
  function shade() {
    var cells = document.querySelectorAll("td.cell[data-ratio]");
    Array.prototype.forEach.call(cells, function (td) {
      var ratio = parseFloat(td.getAttribute("data-ratio"));
      if (!(ratio > 0)) return;
      var strength = Math.min(1, Math.abs(Math.log2(ratio)) / 3);
      var hue = ratio < 1 ? "27, 127, 59" : "179, 38, 30";
      td.style.backgroundColor = "rgba(" + hue + ", " + (0.08 + 0.6 * strength).toFixed(3) + ")";
    });
  }

  var DRAW = {history: history, compare: compare, ranking: ranking, run: run};

  function main() {
    var el = document.getElementById("page-data");
    qsad.data = el ? JSON.parse(el.textContent) : null;
    var page = document.body.getAttribute("data-page");
    try {
      if (qsad.data && DRAW[page]) DRAW[page](qsad.data);
      shade();
    } catch (err) {
      qsad.errors.push(String(err));
    }
    qsad.ready = true;
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", main);
  else main();
})();
