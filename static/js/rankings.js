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
        // three significant digits, thousands grouped, as the site writes numbers
        hovertemplate: "%{theta}: %{customdata[0]:,.3r} %{customdata[1]}" +
          "<br>%{r:.3r} of the best<extra>%{fullData.name}</extra>"
      };
    });
  }

  /* Decade ticks from 1 down to 10^lowest, written as decimals ("0.001", never plotly's
     "1m" or "100µ"); below a millionth as 1e-7. */
  function decadeTicks(lowest) {
    var vals = [], text = [];
    for (var k = 0; k >= lowest; k--) {
      vals.push(Math.pow(10, k));
      text.push(k === 0 ? "1" : k >= -6 ? "0." + "0".repeat(-k - 1) + "1" : "1e" + k);
    }
    return { tickvals: vals, ticktext: text };
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
        radialaxis: Object.assign(
          { type: "log", range: [Math.min(lower, -1), 0.05], angle: 90,
            tickfont: { size: 10, color: "#5d6b7a" } },
          decadeTicks(Math.ceil(Math.min(lower, -1)))),
        angularaxis: { direction: "clockwise", tickfont: { size: narrow ? 8 : 11 } },
        domain: { y: radar.traces.length > 1 ? [0, 0.9] : [0, 1] }
      },
      showlegend: radar.traces.length > 1,
      legend: LEGEND_ABOVE
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

  /* Legends sit above the plot area, outside it (plotly grows the top margin to fit them):
     below it they would collide with rotated phase names, inside it they cover bars. */
  var LEGEND_ABOVE = { orientation: "h", x: 0, xanchor: "left", y: 1, yanchor: "top",
                       yref: "container", bgcolor: "rgba(0,0,0,0)" };
  // The plot area ends a little below such a legend: the top tick label (and a radar's
  // phase names) stand out of it by half a line.
  var BELOW_LEGEND = [0, 0.93];

  function titled(text) { return { text: text, standoff: 8 }; }

  /* Compare: one chart per unit, each axis titled with its unit. */
  function drawUnitBars(node, group) {
    if (!node || !group) { return; }
    var traces = group.traces.map(function (trace, i) {
      return { type: "bar", name: plain(trace.name), x: group.phases, y: trace.values,
               marker: { color: PALETTE[i % PALETTE.length] },
               hovertemplate: "%{x}: %{y:.4g} " + group.unit + "<extra>%{fullData.name}</extra>" };
    });
    Plotly.newPlot(node, traces, baseLayout({
      barmode: "group", margin: { l: 70, r: 20, t: 20, b: 20 }, legend: LEGEND_ABOVE,
      showlegend: true,
      // The unit only (the heading names the quantity): a long rotated title is taller than
      // the plot on a phone and runs into the legend.
      yaxis: { type: "log", title: titled(group.unit + " (log scale)"), automargin: true,
               domain: BELOW_LEGEND },
      xaxis: { title: titled("phase"), tickangle: -30, automargin: true }
    }), CONFIG);
  }

  function drawScoreBars(node, scores) {
    if (!node || !scores) { return; }
    var n = scores.panels.length, gap = 0.1, width = (1 - gap * (n - 1)) / n;
    var layout = baseLayout({ barmode: "group", margin: { l: 60, r: 20, t: 20, b: 20 },
                              legend: LEGEND_ABOVE, showlegend: true });
    var traces = [];
    scores.panels.forEach(function (panel, k) {
      var suffix = k ? String(k + 1) : "";
      layout["xaxis" + suffix] = { domain: [k * (width + gap), k * (width + gap) + width],
                                   anchor: "y" + suffix, showticklabels: false,
                                   title: titled(panel.title), automargin: true };
      layout["yaxis" + suffix] = { anchor: "x" + suffix, title: titled(panel.title),
                                   rangemode: "tozero", automargin: true,
                                   domain: BELOW_LEGEND };
      scores.traces.forEach(function (trace, i) {
        traces.push({ type: "bar", name: plain(trace.name), x: [panel.title],
                      y: [trace.values[k]], xaxis: "x" + suffix, yaxis: "y" + suffix,
                      legendgroup: "s" + i, showlegend: k === 0,
                      marker: { color: PALETTE[i % PALETTE.length] },
                      hovertemplate: panel.title + ": %{y:.4g}<extra>%{fullData.name}</extra>" });
      });
    });
    Plotly.newPlot(node, traces, layout, CONFIG);
  }

  function drawBars(data) {
    if (!data.bars) { return; }
    drawUnitBars(document.getElementById("bars-bw"), data.bars.bw);
    drawUnitBars(document.getElementById("bars-md"), data.bars.md);
    drawScoreBars(document.getElementById("bars-scores"), data.bars.scores);
  }

  // Work rate per rank for one phase at a time (units differ between phases); stragglers are
  // the results library's (ioscore.results.stragglers), computed on the server.
  function drawSpread(data) {
    var node = document.getElementById("spread");
    if (!node || !data.spread || !data.spread.length) { return; }
    var picker = document.getElementById("spread-phase");
    var draw = function (index) {
      var s = data.spread[index];
      if (s.summary) { drawSummarySpread(node, s); return; }
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

  // A phase above the rank-detail threshold holds a summary, not every rank: ranks per rate
  // band (the histogram), the median and p5/p95 as lines, the named stragglers in red.
  function drawSummarySpread(node, s) {
    var sm = s.summary, x = [], width = [];
    for (var i = 0; i < sm.counts.length; i++) {
      x.push((sm.edges[i] + sm.edges[i + 1]) / 2);
      width.push(Math.max(sm.edges[i + 1] - sm.edges[i], 0) || null);
    }
    var top = Math.max.apply(null, sm.counts.concat([1]));
    var bars = { type: "bar", name: "ranks", x: x, y: sm.counts, width: width,
                 marker: { color: PALETTE[0] },
                 hovertemplate: "%{y} ranks near %{x:.3g} " + plain(s.unit) + "<extra></extra>" };
    var traces = [bars];
    [["p5", "#5d6b7a", "dash"], ["p50", "#5d6b7a", "dot"], ["p95", "#5d6b7a", "dash"]]
      .forEach(function (q) {
        if (sm.quantiles[q[0]] === undefined) { return; }
        traces.push({ type: "scatter", mode: "lines", name: q[0],
                      x: [sm.quantiles[q[0]], sm.quantiles[q[0]]], y: [0, top],
                      line: { dash: q[2], color: q[1] },
                      hovertemplate: q[0] + ": %{x:.3g} " + plain(s.unit) + "<extra></extra>" });
      });
    if (s.flags.length) {
      traces.push({ type: "scatter", mode: "markers", name: "stragglers",
                    x: s.flags.map(function (f) { return f.rate; }),
                    y: s.flags.map(function () { return 0; }),
                    marker: { color: "#b03a2e", size: 9, symbol: "triangle-up" },
                    customdata: s.flags.map(function (f) {
                      return "rank " + f.rank + " (" + (f.host ? plain(f.host) : "host unknown") + ")";
                    }),
                    hovertemplate: "%{customdata}: %{x:.3g} " + plain(s.unit) +
                                   "<extra></extra>" });
    }
    var count = s.flags.length;
    Plotly.react(node, traces, baseLayout({
      title: { text: plain(s.phase) + ": " + sm.count + " ranks by rate (summary" +
                     (count ? "; " + count + " named straggler" + (count > 1 ? "s" : "") +
                              " in red)" : "; no stragglers)") },
      xaxis: { title: plain(s.unit) + " per rank" },
      yaxis: { title: "ranks", rangemode: "tozero" },
      margin: { l: 60, r: 20, t: 50, b: 60 }, showlegend: false, bargap: 0.05
    }), CONFIG);
  }

  /* Trends: a release without entries is a shaded, labelled gap on the category axis. */
  function gapMarks(gaps, releases, yref) {
    var shapes = [], notes = [];
    gaps.forEach(function (gap) {
      var at = releases.indexOf(gap.release);
      if (at < 0) { return; }
      shapes.push({ type: "rect", xref: "x", yref: yref, x0: at - 0.45, x1: at + 0.45, y0: 0,
                    y1: 1, fillcolor: "#eef1f4", line: { width: 0 }, layer: "below" });
      notes.push({ xref: "x", yref: yref, x: at, y: 0.5, text: plain(gap.reason),
                   textangle: -90, showarrow: false, font: { size: 10, color: "#5d6b7a" } });
    });
    return { shapes: shapes, annotations: notes };
  }

  function drawTrends(data) {
    var best = document.getElementById("best");
    var dist = document.getElementById("distribution");
    if (!best || !data.best) { return; }
    var b = data.best;
    var releases = b.releases.map(plain);
    var n = b.panels.length, gap = 0.07, height = (1 - gap * (n - 1)) / n;
    var marks = gapMarks(b.gaps, b.releases, "paper");
    var layout = baseLayout({ margin: { l: 70, r: 20, t: 20, b: 20 }, showlegend: false,
                              shapes: marks.shapes, annotations: marks.annotations,
                              xaxis: { type: "category", categoryorder: "array",
                                       categoryarray: releases, title: titled("release"),
                                       automargin: true, anchor: "y" + (n > 1 ? n : "") } });
    var traces = b.panels.map(function (panel, k) {
      var suffix = k ? String(k + 1) : "";
      var top = 1 - k * (height + gap);
      layout["yaxis" + suffix] = { domain: [top - height, top], type: "log",
                                   title: titled(panel.title), automargin: true, anchor: "x" };
      return { type: "scatter", mode: "lines+markers", name: panel.title, x: releases,
               y: panel.values, yaxis: "y" + suffix, connectgaps: false,
               line: { color: PALETTE[k] },
               hovertemplate: "%{x}: %{y:.4g}<extra>best " + plain(panel.title) + "</extra>" };
    });
    Plotly.newPlot(best, traces, layout, CONFIG);

    var d = data.distribution;
    var dmarks = gapMarks(d.gaps, d.releases, "paper");
    // Boxes from the statistics stored with each list (whiskers at the lowest and highest
    // value), not from every value: the payload stays a few numbers per release.
    var drawn = [];
    d.releases.forEach(function (release, i) { if (d.boxes[i]) { drawn.push(i); } });
    var pick = function (key) { return drawn.map(function (i) { return d.boxes[i][key]; }); };
    var boxes = [];
    if (drawn.length) {
      boxes.push({ type: "box", name: plain(d.title),
                   x: drawn.map(function (i) { return releases[i]; }),
                   q1: pick("q1"), median: pick("median"), q3: pick("q3"),
                   lowerfence: pick("min"), upperfence: pick("max"),
                   marker: { color: PALETTE[0] }, line: { color: PALETTE[0] },
                   showlegend: false });
      boxes.push({ type: "scatter", mode: "markers", name: "best new entry",
                   x: drawn.map(function (i) { return releases[i]; }), y: pick("max"),
                   customdata: drawn.map(function (i) {
                     var box = d.boxes[i];
                     return [box.best.name ? " (" + plain(box.best.name) + ")" : "",
                             box.count]; }),
                   marker: { color: PALETTE[1], size: 7, symbol: "diamond" },
                   showlegend: false,
                   hovertemplate: "%{x}: best %{y:.4g}%{customdata[0]}" +
                                  "<br>%{customdata[1]} new entries<extra></extra>" });
    }
    // Every release is a category, also one without a box: the gaps keep their place.
    boxes.push({ type: "scatter", mode: "markers", x: releases,
                 y: releases.map(function () { return null; }), hoverinfo: "skip",
                 showlegend: false });
    Plotly.newPlot(dist, boxes, baseLayout({
      margin: { l: 70, r: 20, t: 20, b: 20 }, showlegend: false,
      shapes: dmarks.shapes, annotations: dmarks.annotations,
      xaxis: { type: "category", categoryorder: "array", categoryarray: releases,
               range: [-0.5, releases.length - 0.5], title: titled("release"),
               automargin: true },
      yaxis: { type: "log", title: titled(d.title), automargin: true }
    }), CONFIG);

    $all("[data-scale]").forEach(function (button) {
      button.addEventListener("click", function () {
        var scale = button.getAttribute("data-scale");
        $all("[data-scale]").forEach(function (other) {
          other.setAttribute("aria-pressed", other === button ? "true" : "false");
        });
        // The range is recomputed for the new scale: a log range (exponents, e.g. -1..6)
        // kept on a linear axis was the trends page's nonsense axis.
        var update = {};
        b.panels.forEach(function (_panel, k) {
          var axis = "yaxis" + (k ? String(k + 1) : "");
          update[axis + ".type"] = scale;
          update[axis + ".autorange"] = true;
        });
        Plotly.relayout(best, update);
        Plotly.relayout(dist, { "yaxis.type": scale, "yaxis.autorange": true });
      });
    });
  }

  function drawCharts() {
    var data = chartData();
    if (!data || typeof Plotly === "undefined") { return; }
    drawRadar(data);
    drawBars(data);
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
