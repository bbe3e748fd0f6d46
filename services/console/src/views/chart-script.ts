/**
 * The usage chart (served as /console/assets/usage-chart.js, on every page since htmx's boosted
 * navigation runs no script of a swapped-in page). It draws nothing until a page holds a
 * `table[data-chart]`; only then it loads uPlot and its stylesheet from Sift, so the other pages
 * never fetch them. Its figures are the table's own (`data-day` on each row, `data-value` on each
 * number cell): the page carries the data once, and without JavaScript the table is what shows.
 * Colours are the stylesheet's custom properties, so the chart follows the system's light or
 * dark scheme, and is drawn again when the scheme or the width changes.
 */
export const USAGE_CHART_JS = `
(function () {
  "use strict";
  var DAY_SECONDS = 86400;
  var loading = null;

  function loadPlot() {
    if (window.uPlot) return Promise.resolve();
    if (!loading) {
      loading = new Promise(function (resolve, reject) {
        var css = document.createElement("link");
        css.rel = "stylesheet";
        css.href = "/console/assets/uPlot.min.css";
        document.head.appendChild(css);
        var script = document.createElement("script");
        script.src = "/console/assets/uPlot.iife.min.js";
        script.onload = function () { resolve(); };
        script.onerror = function () { loading = null; reject(new Error("uPlot did not load")); };
        document.head.appendChild(script);
      });
    }
    return loading;
  }

  function palette() {
    var style = getComputedStyle(document.documentElement);
    var value = function (name) { return style.getPropertyValue(name).trim(); };
    return { fg: value("--fg"), muted: value("--muted"), line: value("--line"),
      accent: value("--accent"), danger: value("--danger"), ok: value("--ok") };
  }

  /**
   * A table with data-series="A|B|…" (the Overview): rows carry data-t (seconds) and one
   * data-value cell per series, in that order.
   */
  function seriesFigures(table, count) {
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-t]"));
    rows.sort(function (a, b) { return Number(a.getAttribute("data-t")) - Number(b.getAttribute("data-t")); });
    var data = [[]];
    for (var i = 0; i < count; i++) data.push([]);
    rows.forEach(function (row) {
      data[0].push(Number(row.getAttribute("data-t")));
      var cells = row.querySelectorAll("[data-value]");
      for (var j = 0; j < count; j++) data[j + 1].push(cells[j] ? Number(cells[j].getAttribute("data-value")) : 0);
    });
    return data;
  }

  /** [days (UTC midnight, seconds), counted, rate limited, over allowance], oldest first. */
  function figures(table) {
    var rows = Array.prototype.slice.call(table.querySelectorAll("tbody tr[data-day]"));
    rows.sort(function (a, b) { return Number(a.getAttribute("data-day")) - Number(b.getAttribute("data-day")); });
    var data = [[], [], [], []];
    rows.forEach(function (row) {
      data[0].push(Number(row.getAttribute("data-day")) * DAY_SECONDS);
      var cells = row.querySelectorAll("[data-value]");
      for (var i = 0; i < 3; i++) data[i + 1].push(cells[i] ? Number(cells[i].getAttribute("data-value")) : 0);
    });
    return data;
  }

  /**
   * Each bucket is a total over its hour or day, not a reading at its start: drawn as steps, each
   * value held across its bucket, and the newest bucket (today, still filling) as a flat step of
   * its own rather than a slope from the one before (issue 41). So one more x, a bucket later.
   */
  function asSteps(data) {
    var xs = data[0];
    if (xs.length === 0) return data;
    var width = xs.length > 1 ? xs[xs.length - 1] - xs[xs.length - 2] : DAY_SECONDS;
    return data.map(function (column, i) {
      return column.concat([i === 0 ? xs[xs.length - 1] + width : column[column.length - 1]]);
    });
  }

  function draw(table) {
    var holder = document.createElement("div");
    holder.className = "chart";
    // The table below carries the same figures for screen readers.
    holder.setAttribute("aria-hidden", "true");
    table.parentNode.insertBefore(holder, table);
    var names = table.hasAttribute("data-series") ? table.getAttribute("data-series").split("|") : null;
    var data = asSteps(names ? seriesFigures(table, names.length) : figures(table));
    var plot = null;
    var scheme = window.matchMedia("(prefers-color-scheme: dark)");
    function render() {
      if (!holder.isConnected) {
        scheme.removeEventListener("change", render);
        window.removeEventListener("resize", resized);
        return;
      }
      if (plot) plot.destroy();
      var c = palette();
      var steps = window.uPlot.paths && window.uPlot.paths.stepped ? window.uPlot.paths.stepped({ align: 1 }) : undefined;
      var axis = function (extra) {
        var base = { stroke: c.muted, grid: { stroke: c.line, width: 1 }, ticks: { stroke: c.line, width: 1 } };
        for (var k in extra) base[k] = extra[k];
        return base;
      };
      if (names) {
        var strokes = [c.danger, c.ok, c.fg, c.muted];
        plot = new window.uPlot({
          width: Math.max(holder.clientWidth, 280),
          height: 260,
          tzDate: function (ts) { return window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
          scales: { x: { time: true }, y: { range: [0, null] } },
          series: [{ label: "Time (UTC)" }].concat(names.map(function (name, i) {
            return { label: name, stroke: strokes[i % strokes.length], width: 2, dash: i >= 2 ? [6, 4] : undefined, paths: steps };
          })),
          axes: [axis({}), axis({ label: table.getAttribute("data-y-label") || "" })]
        }, data, holder);
        return;
      }
      plot = new window.uPlot({
        width: Math.max(holder.clientWidth, 280),
        height: 260,
        tzDate: function (ts) { return window.uPlot.tzDate(new Date(ts * 1000), "Etc/UTC"); },
        scales: { x: { time: true }, calls: { range: [0, null] }, refused: { range: [0, null] } },
        series: [
          { label: "Day (UTC)" },
          { label: "Counted calls", scale: "calls", stroke: c.accent, width: 2, paths: steps },
          { label: "429 rate limited", scale: "refused", stroke: c.danger, width: 2, paths: steps },
          { label: "429 over allowance", scale: "refused", stroke: c.fg, width: 1, dash: [6, 4], paths: steps }
        ],
        axes: [
          axis({}),
          axis({ scale: "calls", label: "Counted calls" }),
          axis({ scale: "refused", side: 1, label: "429 answers", grid: { show: false } })
        ]
      }, data, holder);
    }
    var timer = 0;
    function resized() { clearTimeout(timer); timer = setTimeout(render, 150); }
    scheme.addEventListener("change", render);
    window.addEventListener("resize", resized);
    render();
  }

  function scan(root) {
    var tables = root.querySelectorAll ? root.querySelectorAll("table[data-chart]") : [];
    Array.prototype.forEach.call(tables, function (table) {
      if (table.hasAttribute("data-drawn")) return;
      table.setAttribute("data-drawn", "");
      loadPlot().then(function () { draw(table); }, function () { table.removeAttribute("data-drawn"); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { scan(document); });
  } else {
    scan(document);
  }
  document.addEventListener("htmx:load", function (event) { scan(event.target); });
})();
`;
