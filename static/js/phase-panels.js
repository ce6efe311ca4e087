/* The run page's small multiples: one plotly chart per phase, drawn into each
 * <figure data-phase-panel="<phase>"> from the page's chart data (rankings.charts.panels_payload).
 * Every axis brings its own ticks, labelled on the server as the site prints numbers (three
 * significant digits and the unit); the panels do not zoom, so those ticks always apply.
 * The "Show each host" toggle adds a line per host where the run recorded them. */
(function () {
  "use strict";

  var RATE = "#1f5fa8", P99 = "#d9822b", MARK = "#5b6770";
  var HOSTS = ["#2e8b57", "#b03a48", "#7b5ea7", "#5b6770", "#8c6d1f", "#1b7f8c"];
  var CONFIG = { displaylogo: false, responsive: true, displayModeBar: false };

  /* Plotly reads <b>, <a href>, <br> in names as markup: host names are shown as typed. */
  function plain(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function axis(spec, extra) {
    var out = { range: spec.range, tickmode: "array", tickvals: spec.ticks, ticktext: spec.labels,
                fixedrange: true, zeroline: false, automargin: true,
                tickfont: { size: 10, color: "#5d6b7a" } };
    Object.keys(extra || {}).forEach(function (key) { out[key] = extra[key]; });
    return out;
  }

  function blankFirst(label, index) { return index ? label : ""; }

  function traces(p, showHosts) {
    var out = [{ type: "scatter", mode: "lines", name: "all ranks", x: p.t, y: p.rate,
                 line: { shape: "hv", color: RATE, width: 2 },
                 hovertemplate: "%{y:,.3r} " + p.y.unit + " at %{x:,.3r} " + p.x.unit +
                                "<extra>all ranks</extra>" }];
    p.hosts.forEach(function (h, i) {
      out.push({ type: "scatter", mode: "lines", name: plain(h.host), x: p.t, y: h.rate,
                 visible: showHosts, line: { shape: "hv", width: 1, color: HOSTS[i % HOSTS.length] },
                 hovertemplate: "%{y:,.3r} " + p.y.unit + "<extra>" + plain(h.host) + "</extra>" });
    });
    if (p.y2) {
      out.push({ type: "scatter", mode: "lines+markers", name: "p99 latency", x: p.p99_t,
                 y: p.p99, yaxis: "y2", connectgaps: false, marker: { size: 4 },
                 line: { color: P99, dash: "dot", width: 1.5 },
                 hovertemplate: "p99 %{y:,.3r} " + p.y2.unit + "<extra></extra>" });
    }
    return out;
  }

  function layout(p, showHosts) {
    var shapes = [], notes = [];
    p.marks.forEach(function (m) {
      var stonewall = m.kind === "stonewall";
      // The wear-out end's label goes after its line, unless that runs off the plot: then
      // before it, lower than the stonewall's. The labels at the top sit above the plot, so
      // they never hide a rate near the axis's top.
      var after = !stonewall && m.at < 0.8 * p.x.range[1];
      var top = stonewall || after;
      shapes.push({ type: "line", xref: "x", yref: "paper", x0: m.at, x1: m.at, y0: 0, y1: 1,
                    line: { color: MARK, width: 1.5, dash: stonewall ? "dash" : "dashdot" } });
      notes.push({ xref: "x", yref: "paper", x: m.at, y: top ? 1 : 0.05,
                   yanchor: "bottom", showarrow: false,
                   text: plain(m.kind), font: { size: 10, color: MARK },
                   bgcolor: "rgba(255,255,255,0.8)", xanchor: after ? "left" : "right" });
    });
    var legend = !!p.y2 || (showHosts && p.hosts.length > 0);
    // a row for the marks' labels between the legend and the plot
    var labels = p.marks.length && legend ? 16 : 0;
    var out = {
      // room on the right for the last time tick's label, which sits on the plot's edge
      margin: { l: 8, r: p.y2 ? 8 : 30, t: (legend ? 40 : 18) + labels, b: 8 },
      font: { family: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size: 11 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      // the time axis's 0 would sit on the rate axis's 0 in the corner: the rate's says it
      xaxis: axis({ range: p.x.range, ticks: p.x.ticks, labels: p.x.labels.map(blankFirst) }),
      yaxis: axis(p.y), shapes: shapes, annotations: notes,
      showlegend: legend, hovermode: "closest",
      legend: { orientation: "h", x: 0, xanchor: "left", y: 1, yanchor: "top",
                yref: "container", font: { size: 10 }, bgcolor: "rgba(0,0,0,0)" }
    };
    if (p.y2) {
      // its 0 would sit on the last time tick in the corner: the rate axis's 0 says it
      out.yaxis2 = axis({ range: p.y2.range, ticks: p.y2.ticks, labels: p.y2.labels.map(blankFirst) },
                        { overlaying: "y", side: "right", showgrid: false,
                          tickfont: { size: 10, color: P99 } });
    }
    return out;
  }

  function start() {
    var node = document.getElementById("chart-data");
    if (!node || typeof Plotly === "undefined") { return; }
    var panels = JSON.parse(node.textContent).panels || [];
    var byPhase = {};
    panels.forEach(function (p) { byPhase[p.phase] = p; });
    var figures = Array.prototype.slice.call(document.querySelectorAll("[data-phase-panel]"));
    var showHosts = false;
    var draw = function () {
      figures.forEach(function (figure) {
        var p = byPhase[figure.getAttribute("data-phase-panel")];
        var plot = figure.querySelector(".panel-plot");
        if (p && plot) { Plotly.react(plot, traces(p, showHosts), layout(p, showHosts), CONFIG); }
      });
    };
    draw();
    var toggle = document.getElementById("panel-hosts");
    if (toggle) {
      toggle.addEventListener("click", function () {
        showHosts = !showHosts;
        toggle.setAttribute("aria-pressed", showHosts ? "true" : "false");
        draw();
      });
    }
    document.body.setAttribute("data-panels", "ready");
  }

  // A deferred script runs before DOMContentLoaded (the document already "interactive"),
  // possibly before plotly's, which the page may include after this one: wait for the event.
  if (document.readyState === "complete") { start(); } else {
    document.addEventListener("DOMContentLoaded", start);
  }
})();
