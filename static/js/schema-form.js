/* The guided system-description form (submissions/schema_form.py) in the browser.
 *
 * The page works without this script: every button posts and the server re-lays out the form.
 * With it, the same buttons act in place, so the chosen archive stays selected:
 *  - "Fill the form from it" reads the pasted (or chosen) ioscore sysinfo JSON and fills the
 *    fields whose names are "sys-" + the JSON path, adding repeated groups as needed;
 *  - "Add ..." copies the last group of a repeated set, renumbered and empty;
 *  - "Remove ..." removes a group (the server closes the gaps in the numbering);
 *  - an error shown beside a field goes away once its value is changed.
 * Plain ES2018, no dependencies, nothing loaded from elsewhere.
 */
(function () {
  "use strict";
  var PREFIX = "sys-";
  var MAX_ITEMS = 32;
  var MAX_BYTES = 1 << 20;

  function status(text) {
    var el = document.getElementById("sf-status");
    if (el) { el.textContent = text; }
  }

  function escapeRe(text) { return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  /* Replace the path prefix `from` by `to` in one attribute value, in both spellings the
     form uses: dotted (names, Django ids) and dashed (the group and help ids). */
  function renamed(value, from, to) {
    var dotted = new RegExp("(?<![A-Za-z0-9_])" + escapeRe(from) + "(?=[.\"]|$)", "g");
    var dashFrom = from.replace(/\./g, "-");
    var dashed = new RegExp("(?<![A-Za-z0-9_])" + escapeRe(dashFrom) + "(?=-|$)", "g");
    return value.replace(dotted, to).replace(dashed, to.replace(/\./g, "-"));
  }

  var ATTRS = ["name", "id", "for", "data-path", "data-array", "aria-describedby", "list", "value"];

  function renumber(root, from, to) {
    var nodes = [root].concat(Array.prototype.slice.call(root.querySelectorAll("*")));
    nodes.forEach(function (el) {
      ATTRS.forEach(function (attr) {
        if (!el.hasAttribute(attr)) { return; }
        if (attr === "value" && el.tagName !== "BUTTON") { return; }
        el.setAttribute(attr, renamed(el.getAttribute(attr), from, to));
      });
    });
  }

  function clearValues(root) {
    root.querySelectorAll("input, select, textarea").forEach(function (el) {
      if (el.type === "checkbox" || el.type === "radio") { el.checked = false; }
      else if (el.tagName === "SELECT") { el.selectedIndex = 0; }
      else if (el.type !== "hidden" && el.type !== "submit") { el.value = ""; }
    });
    root.querySelectorAll(".sf-error, .errorlist").forEach(function (el) { el.remove(); });
    root.querySelectorAll(".sf-invalid").forEach(function (el) { el.classList.remove("sf-invalid"); });
  }

  function items(array) {
    return Array.prototype.filter.call(array.children, function (el) {
      return el.classList.contains("sf-group");
    });
  }

  function positionOf(item) {
    var path = item.getAttribute("data-path");
    return parseInt(path.slice(path.lastIndexOf(".") + 1), 10);
  }

  function relabel(array) {
    items(array).forEach(function (item, i) {
      var legend = item.querySelector(":scope > legend");
      var remove = item.querySelector(":scope > .sf-remove");
      var number = String(i + 1);
      if (legend && legend.firstChild) {
        legend.firstChild.textContent = legend.firstChild.textContent.replace(/\d+\s*$/, number);
      }
      if (remove) { remove.textContent = remove.textContent.replace(/\d+\s*$/, number); }
    });
  }

  function addItem(array) {
    var existing = items(array);
    if (!existing.length || existing.length >= MAX_ITEMS) { return null; }
    var last = existing[existing.length - 1];
    var next = Math.max.apply(null, existing.map(positionOf)) + 1;
    var base = array.getAttribute("data-array");
    var copy = last.cloneNode(true);
    renumber(copy, base + "." + positionOf(last), base + "." + next);
    // a copied group starts with one (empty) entry in each of its own repeated sets
    copy.querySelectorAll(".sf-array").forEach(function (inner) {
      items(inner).slice(1).forEach(function (extra) { extra.remove(); });
    });
    clearValues(copy);
    last.after(copy);
    relabel(array);
    return copy;
  }

  function removeItem(item) {
    var array = item.parentElement;
    if (items(array).length > 1) { item.remove(); relabel(array); }
    else { clearValues(item); }
  }

  function arrayAt(path) {
    return document.querySelector('[data-array="' + CSS.escape(path) + '"]');
  }

  function itemsNeeded(value, path) {
    if (Array.isArray(value)) {
      var array = arrayAt(path);
      if (array) {
        while (items(array).length < Math.min(value.length, MAX_ITEMS)) {
          if (!addItem(array)) { break; }
        }
      }
      value.forEach(function (item, i) { itemsNeeded(item, path + "." + i); });
    } else if (value && typeof value === "object") {
      Object.keys(value).forEach(function (key) {
        itemsNeeded(value[key], path ? path + "." + key : key);
      });
    }
  }

  function field(path) {
    return document.querySelector('[name="' + CSS.escape(PREFIX + path) + '"]');
  }

  /* Set every field the JSON has a value for; returns how many were set. */
  function fill(value, path) {
    var el = path ? field(path) : null;
    if (el) {
      if (el.type === "checkbox") { el.checked = value === true; }
      else if (typeof value === "boolean") { el.value = value ? "true" : "false"; }
      else if (value && typeof value === "object" && !Array.isArray(value)) {
        el.value = Object.keys(value).map(function (k) { return k + " = " + value[k]; }).join("\n");
      } else if (value !== null && value !== undefined) { el.value = String(value); }
      el.dispatchEvent(new Event("change", { bubbles: true }));
      return 1;
    }
    var count = 0;
    if (Array.isArray(value)) {
      value.forEach(function (item, i) { count += fill(item, path + "." + i); });
    } else if (value && typeof value === "object") {
      Object.keys(value).forEach(function (key) {
        count += fill(value[key], path ? path + "." + key : key);
      });
    }
    return count;
  }

  function prefill(event) {
    var area = document.querySelector('textarea[name="system"]');
    if (!area || !area.value.trim()) {
      status("Paste the JSON or choose its file first.");
      event.preventDefault();
      return;
    }
    event.preventDefault();
    var data;
    try { data = JSON.parse(area.value); }
    catch (error) { status("The pasted text is not JSON: " + error.message); return; }
    if (!data || typeof data !== "object" || Array.isArray(data)) {
      status("The pasted JSON must be an object (a system description).");
      return;
    }
    delete data.schema;
    itemsNeeded(data, "");
    var count = fill(data, "");
    area.value = "";
    status("Filled " + count + " field(s) from the pasted description; check them and complete the rest.");
  }

  function readFile(event) {
    var input = event.target;
    var file = input.files && input.files[0];
    if (!file) { return; }
    if (file.size > MAX_BYTES) { status("The file is larger than 1 MiB."); input.value = ""; return; }
    file.text().then(function (text) {
      var area = document.querySelector('textarea[name="system"]');
      if (area) { area.value = text; }
      input.value = "";  // its text is in the box now; do not send the file as well
      status("Read " + file.name + "; press \u201cFill the form from it\u201d.");
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.querySelector("form.sf-form");
    if (!form) { return; }
    // what only matters without this script (the archive kept across round trips)
    form.querySelectorAll(".sf-nojs").forEach(function (el) { el.hidden = true; });
    var button = document.getElementById("sf-prefill");
    if (button) { button.addEventListener("click", prefill); }
    var file = form.querySelector('input[name="system_file"]');
    if (file) { file.addEventListener("change", readFile); }
    // a changed value is no longer what the server complained about
    var settle = function (event) {
      var block = event.target.closest && event.target.closest(".sf-field");
      if (!block || !block.classList.contains("sf-invalid")) { return; }
      block.classList.remove("sf-invalid");
      block.querySelectorAll(".sf-error").forEach(function (el) { el.remove(); });
    };
    form.addEventListener("input", settle);
    form.addEventListener("change", settle);
    form.addEventListener("click", function (event) {
      var target = event.target.closest("button");
      if (!target) { return; }
      if (target.classList.contains("sf-add")) {
        event.preventDefault();
        var added = addItem(target.closest(".sf-array"));
        if (added) {
          var first = added.querySelector("input, select, textarea");
          if (first) { first.focus(); }
          status("Added " + added.querySelector("legend").textContent.replace(/\*/g, "").trim() + ".");
        }
      } else if (target.classList.contains("sf-remove")) {
        event.preventDefault();
        var item = target.closest(".sf-group");
        var array = item.parentElement;
        removeItem(item);
        var add = array.querySelector(":scope > .sf-add");
        if (add) { add.focus(); }
        status("Removed.");
      }
    });
  });
})();
