/* Acceptance history charts: per test and operation, each run's mean over its iterations with
 * a band of one standard deviation, min..max whiskers and the plan's target as a step line.
 * Data: the page's <script id="acceptance-series" type="application/json"> (json_script). */
(function () {
  "use strict";

  var CONFIG = { displaylogo: false, responsive: true,
                 modeBarButtonsToRemove: ["sendDataToCloud", "lasso2d", "select2d"] };

  function traces(series) {
    var x = [], mean = [], upper = [], lower = [], plus = [], minus = [], text = [];
    var target = [], colors = [], alertX = [], alertY = [], alertText = [];
    // an uploaded IO500 run is a submission, not an acceptance run
    var name = series.source === "submission" ? "IO500 run " : "run ";
    var unit = series.unit ? " " + series.unit : "";
    series.points.forEach(function (p) {
      x.push(p.when);
      mean.push(p.mean);
      upper.push(p.mean + p.stddev);
      lower.push(Math.max(0, p.mean - p.stddev));
      plus.push(p.max - p.mean);
      minus.push(p.mean - p.min);
      target.push(p.target);
      colors.push(p.passed === null ? "#1f5fa8" : (p.passed ? "#2e8b57" : "#b03a48"));
      if (p.alert) {
        alertX.push(p.when);
        alertY.push(p.mean);
        alertText.push(name + p.run + ": " + p.alert);
      }
      var who = name + p.run + (p.label ? " · " + p.label : "");
      if (series.source === "submission") { text.push(who); return; }
      text.push(who + "<br>" +
                p.iterations + " iteration(s), stddev " + p.stddev.toPrecision(3) +
                "<br>min " + p.min.toPrecision(4) + " · max " + p.max.toPrecision(4) +
                (p.target === null ? "" : "<br>target " + (p.target_at_least ? "≥ " : "≤ ") +
                 p.target + unit + (p.passed ? " (pass)" : " (FAIL)")));
    });
    var line = { x: x, y: mean, mode: "lines+markers", name: "mean", text: text,
                 hovertemplate: "%{y:.4g}" + unit + "<br>%{text}<extra></extra>",
                 line: { color: "#1f5fa8" }, marker: { size: 9, color: colors },
                 error_y: { type: "data", symmetric: false, array: plus, arrayminus: minus,
                            color: "#5b6770", thickness: 1, width: 4 } };
    if (series.source === "submission") {
      // one value per uploaded run: no iterations, so no band and no whiskers
      line.name = "value";
      delete line.error_y;
      return [line].concat(alertTrace(alertX, alertY, alertText));
    }
    var out = [
      { x: x, y: lower, mode: "lines", line: { width: 0 }, hoverinfo: "skip",
        showlegend: false, name: "mean − stddev" },
      { x: x, y: upper, mode: "lines", line: { width: 0 }, fill: "tonexty",
        fillcolor: "rgba(31,95,168,0.18)", hoverinfo: "skip", name: "± 1 stddev" },
      line
    ];
    if (target.some(function (t) { return t !== null; })) {
      // A dash at every run (visible even for a single run) joined by a step line.
      out.push({ x: x, y: target, mode: "lines+markers", name: "target", connectgaps: false,
                 hoverinfo: "skip", line: { color: "#d9822b", dash: "dash", shape: "hv" },
                 marker: { symbol: "line-ew-open", size: 22, color: "#d9822b",
                           line: { width: 2, color: "#d9822b" } } });
    }
    return out.concat(alertTrace(alertX, alertY, alertText));
  }

  // The runs that raised a regression alert, as red triangles (none: no trace).
  function alertTrace(alertX, alertY, alertText) {
    if (!alertX.length) { return []; }
    return [{ x: alertX, y: alertY, mode: "markers", name: "regression alert",
              text: alertText, hovertemplate: "%{text}<extra></extra>",
              marker: { symbol: "triangle-down", size: 16, color: "#b03a48",
                        line: { width: 1, color: "#5b1a22" } } }];
  }

  function draw() {
    var node = document.getElementById("acceptance-series");
    if (!node || typeof Plotly === "undefined") { return; }
    var all = JSON.parse(node.textContent);
    all.forEach(function (series, index) {
      var box = document.getElementById("acceptance-chart-" + index);
      if (!box) { return; }
      Plotly.newPlot(box, traces(series), {
        margin: { t: 10, r: 10, b: 40, l: 70 }, height: 300,
        xaxis: { type: "date" },
        yaxis: { title: { text: series.operation + (series.unit ? " (" + series.unit + ")" : "") },
                 rangemode: "tozero" },
        legend: { orientation: "h", y: -0.2 }
      }, CONFIG);
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", draw);
  } else {
    draw();
  }
})();
