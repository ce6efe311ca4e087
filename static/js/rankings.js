/* ioscore public pages: comparison picking on list pages, citation copying and the plotly
 * charts. Chart data comes from the page's <script id="chart-data" type="application/json">
 * (Django's json_script), so the pages need no extra request and work offline. */
(function () {
  "use strict";

  var PALETTE = ["#1f5fa8", "#d9822b", "#2e8b57", "#b03a48", "#7b5ea7", "#5b6770"];
  var CONFIG = { displaylogo: false, responsive: true,
                 modeBarButtonsToRemove: ["sendDataToCloud", "lasso2d", "select2d"] };

  function $(selector, root) { return (root || document).querySelector(selector); }
  function $all(selector, root) {
    return Array.prototype.slice.call((root || document).querySelectorAll(selector));
  }

  /* --- list page: pick rows for the comparison ----------------------------------------- */
  function setupCompare() {
    var form = $("#compare-form");
    if (!form) { return; }
    var button = $("#compare-button");
    var max = parseInt(button.getAttribute("data-max"), 10) || 6;
    var count = $("#compare-count");
    var hint = $("#compare-hint");
    function picked() {
      return $all('input[name="pick"]:checked').map(function (box) { return box.value; });
    }
    function update() {
      var n = picked().length;
      count.textContent = String(n);
      var ok = n >= 2 && n <= max;
      button.setAttribute("aria-disabled", ok ? "false" : "true");
      button.classList.toggle("disabled", !ok);
      hint.textContent = n > max ? "At most " + max + " rows." : "Tick 2–" + max + " rows.";
      $all('input[name="pick"]').forEach(function (box) {
        box.closest("tr").classList.toggle("picked", box.checked);
      });
    }
    document.addEventListener("change", function (event) {
      if (event.target && event.target.name === "pick") { update(); }
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var ids = picked();
      if (ids.length < 2 || ids.length > max) {
        hint.textContent = "Tick 2–" + max + " rows first.";
        hint.focus && hint.focus();
        return;
      }
      window.location.assign(form.getAttribute("action") + "?ids=" + ids.join(","));
    });
    update();
  }

  /* --- citation helper ----------------------------------------------------------------- */
  function setupCopy() {
    $all("button.copy").forEach(function (button) {
      button.addEventListener("click", function () {
        var text = button.getAttribute("data-copy");
        var done = function () { button.textContent = "Copied"; };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, done);
        } else { done(); }
      });
    });
  }

  /* --- charts -------------------------------------------------------------------------- */
  /* Plotly reads <b>, <a href>, <br> in names and labels as markup: submitter-chosen text
     (system names, host names, releases) is escaped so it always shows as typed. */
  function plain(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function chartData() {
    var node = document.getElementById("chart-data");
    return node ? JSON.parse(node.textContent) : null;
  }

  function baseLayout(extra) {
    var layout = {
      margin: { l: 60, r: 20, t: 30, b: 60 },
      font: { family: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif", size: 12 },
      paper_bgcolor: "rgba(0,0,0,0)", plot_bgcolor: "rgba(0,0,0,0)",
      legend: { orientation: "h", y: -0.2 }, hovermode: "closest"
    };
    Object.keys(extra || {}).forEach(function (key) { layout[key] = extra[key]; });
    // plotly.js 3+ ignores a plain-string axis or chart title: wrap it as {text: ...}.
    ["title", "xaxis", "yaxis"].forEach(function (key) {
      var part = layout[key];
      if (key === "title" && typeof part === "string") { layout.title = { text: part }; }
      if (key !== "title" && part && typeof part.title === "string") {
        part.title = { text: part.title };
      }
    });
    return layout;
  }

  /* Radar: each phase as a fraction of the reference's best, on a log radial axis. */
  function radarTraces(radar, refName) {
    var ref = radar.references[refName].values;
    return radar.traces.map(function (trace, i) {
      var r = trace.values.map(function (v, k) {
        return (v && ref[k]) ? v / ref[k] : null;
      });
      return {
        type: "scatterpolar", name: plain(trace.name), r: r, theta: radar.phases.slice(),
        fill: "toself", opacity: 0.55, line: { color: PALETTE[i % PALETTE.length] },
        customdata: trace.values.map(function (v, k) { return [v, radar.units[k]]; }),
        hovertemplate: "%{theta}: %{customdata[0]:.3f} %{customdata[1]}" +
          "<br>%{r:.3f} of the best<extra>%{fullData.name}</extra>"
      };
    });
  }

  function radarLayout(radar, refName) {
    var smallest = 1;
    radarTraces(radar, refName).forEach(function (t) {
      t.r.forEach(function (v) { if (v && v < smallest) { smallest = v; } });
    });
    var lower = Math.floor(Math.log10(smallest)) - 0.05;
    var narrow = window.innerWidth < 600;  // phones: phase names need the room
    return baseLayout({
      margin: narrow ? { l: 80, r: 80, t: 20, b: 30 } : { l: 70, r: 70, t: 30, b: 40 },
      font: { family: "system-ui, -apple-system, Segoe UI, Roboto, sans-serif",
              size: narrow ? 9 : 12 },
      polar: {
        // Decade ticks only (0.001, 0.01, 0.1, 1): minor log labels overlap on a radar.
        radialaxis: { type: "log", range: [Math.min(lower, -1), 0.05], angle: 90,
                      dtick: 1, tickfont: { size: 10, color: "#5d6b7a" } },
        angularaxis: { direction: "clockwise", tickfont: { size: narrow ? 8 : 11 } }
      },
      showlegend: radar.traces.length > 1
    });
  }

  function drawRadar(data) {
    var node = document.getElementById("radar");
    if (!node || !data.radar) { return; }
    var ref = "list";
    var draw = function () {
      Plotly.react(node, radarTraces(data.radar, ref), radarLayout(data.radar, ref), CONFIG);
      node.setAttribute("data-reference", ref);
    };
    draw();
    $all("[data-radar-ref]").forEach(function (button) {
      button.addEventListener("click", function () {
        ref = button.getAttribute("data-radar-ref");
        $all("[data-radar-ref]").forEach(function (b) {
          b.setAttribute("aria-pressed", b === button ? "true" : "false");
        });
        draw();
      });
    });
  }

  function drawBars(data) {
    var node = document.getElementById("bars");
    if (!node || !data.bars) { return; }
    var traces = data.bars.traces.map(function (trace, i) {
      return { type: "bar", name: plain(trace.name), x: data.bars.phases, y: trace.values,
               marker: { color: PALETTE[i % PALETTE.length] },
               customdata: data.bars.units,
               hovertemplate: "%{x}: %{y:.3f} %{customdata}<extra>%{fullData.name}</extra>" };
    });
    Plotly.newPlot(node, traces, baseLayout({
      barmode: "group", margin: { l: 60, r: 20, t: 50, b: 120 },
      legend: { orientation: "h", x: 0, y: 1.14 },
      yaxis: { type: "log", dtick: 1, title: "GiB/s (ior) · kIOPS (mdtest, find)" },
      xaxis: { tickangle: -40 }
    }), CONFIG);
  }

  // Bandwidth phases on the left axis (GiB/s), metadata phases on the right one (kIOPS).
  function drawTimeseries(data) {
    var node = document.getElementById("timeseries");
    if (!node || !data.timeseries || !data.timeseries.length) { return; }
    var traces = data.timeseries.map(function (s, i) {
      return { type: "scatter", mode: "lines+markers", name: plain(s.phase) + " (" + plain(s.unit) + ")",
               x: s.t, y: s.rate, yaxis: s.unit === "GiB/s" ? "y" : "y2",
               line: { color: PALETTE[i % PALETTE.length] } };
    });
    Plotly.newPlot(node, traces, baseLayout({
      xaxis: { title: "seconds since phase start", rangemode: "tozero" },
      yaxis: { title: "GiB/s (ior phases)", type: "log" },
      yaxis2: { title: { text: "kIOPS (mdtest, find)" }, type: "log", overlaying: "y",
                side: "right" },
      margin: { l: 70, r: 70, t: 30, b: 60 }
    }), CONFIG);
  }

  // Work rate per rank for one phase at a time (units differ between phases); stragglers are
  // the results library's (ioscore.results.stragglers), computed on the server.
  function drawSpread(data) {
    var node = document.getElementById("spread");
    if (!node || !data.spread || !data.spread.length) { return; }
    var picker = document.getElementById("spread-phase");
    var draw = function (index) {
      var s = data.spread[index];
      var flagged = {};
      s.flags.forEach(function (flag) { flagged[flag.rank] = flag.reason; });
      var labels = s.ranks.map(function (rank, k) {
        return s.hosts[k] ? rank + " (" + plain(s.hosts[k]) + ")" : String(rank);
      });
      var bars = { type: "bar", name: "work rate", x: labels, y: s.rate,
                   marker: { color: s.ranks.map(function (rank) {
                     return rank in flagged ? "#b03a2e" : PALETTE[0]; }) },
                   customdata: s.ranks.map(function (rank) { return plain(flagged[rank] || ""); }),
                   hovertemplate: "rank %{x}: %{y:.3g} " + plain(s.unit) +
                                  "<br>%{customdata}<extra></extra>" };
      var median = { type: "scatter", mode: "lines", name: "median rank",
                     x: [labels[0], labels[labels.length - 1]], y: [s.median, s.median],
                     line: { dash: "dot", color: "#5d6b7a" } };
      var count = s.flags.length;
      Plotly.react(node, [bars, median], baseLayout({
        title: { text: plain(s.phase) + ": work rate per rank" +
                       (count ? " (" + count + " straggler" + (count > 1 ? "s" : "") + " in red)"
                              : " (no stragglers)") },
        xaxis: { title: "MPI rank (host)", type: "category" },
        yaxis: { title: plain(s.unit) + " per rank", rangemode: "tozero" },
        margin: { l: 60, r: 20, t: 50, b: 80 }, showlegend: false
      }), CONFIG);
    };
    var first = 0;
    data.spread.forEach(function (s, i) { if (!first && s.flags.length) { first = i; } });
    if (picker) {
      picker.value = String(first);
      picker.addEventListener("change", function () { draw(Number(picker.value)); });
    }
    draw(first);
  }

  function drawTrends(data) {
    var best = document.getElementById("best");
    var dist = document.getElementById("distribution");
    if (!best || !data.best) { return; }
    var b = data.best;
    var releases = b.releases.map(plain);
    Plotly.newPlot(best, [
      { type: "scatter", mode: "lines+markers", name: "Score", x: releases, y: b.score,
        line: { color: PALETTE[0] } },
      { type: "scatter", mode: "lines+markers", name: "BW (GiB/s)", x: releases, y: b.bw,
        line: { color: PALETTE[1] } },
      { type: "scatter", mode: "lines+markers", name: "MD (kIOPS)", x: releases, y: b.md,
        line: { color: PALETTE[2] } }
    ], baseLayout({ yaxis: { type: "log" }, xaxis: { type: "category" } }), CONFIG);
    var d = data.distribution;
    var traces = d.releases.map(function (release, i) {
      return { type: "box", name: plain(release), y: d.values[i], boxpoints: "all", jitter: 0.4,
               pointpos: 0, marker: { color: PALETTE[0], size: 4 },
               line: { color: PALETTE[0] }, showlegend: false };
    });
    Plotly.newPlot(dist, traces, baseLayout({
      yaxis: { type: "log", title: d.metric + (d.unit ? " (" + d.unit + ")" : "") }
    }), CONFIG);
    $all("[data-scale]").forEach(function (button) {
      button.addEventListener("click", function () {
        var scale = button.getAttribute("data-scale");
        $all("[data-scale]").forEach(function (other) {
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
        });
        Plotly.relayout(best, { "yaxis.type": scale });
        Plotly.relayout(dist, { "yaxis.type": scale });
      });
    });
  }

  function drawCharts() {
    var data = chartData();
    if (!data || typeof Plotly === "undefined") { return; }
    drawRadar(data);
    drawBars(data);
    drawTimeseries(data);
    drawSpread(data);
    drawTrends(data);
    document.body.setAttribute("data-charts", "ready");
  }

  function start() {
    setupCompare();
    setupCopy();
    drawCharts();
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else { start(); }
})();
