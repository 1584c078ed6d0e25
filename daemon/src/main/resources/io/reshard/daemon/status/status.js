// The daemon's status page: reads /health, /workflows and /keyspaces every second and draws them.
// Read-only; no framework, nothing from the network.
"use strict";

const POLL_MS = 1000;
const LAG_WINDOW_MS = 5 * 60 * 1000;
const STEPS = ["CREATED", "COPYING", "RUNNING", "READS_SWITCHED", "WRITES_SWITCHED", "COMPLETED"];
const lagHistory = new Map(); // "workflow stream-key" -> [[time, lag_ms]]
let lastAnswer = null;
const lastGood = new Map(); // path -> {view, at}: what is drawn, marked stale, while a view fails
let downSince = null;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v !== null && v !== undefined) e.setAttribute(k, v);
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  }
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function clock(t) {
  return new Date(t).toLocaleTimeString([], { hour12: false });
}

function number(n) {
  return n === null || n === undefined ? "unknown" : Number(n).toLocaleString("en-US");
}

function duration(seconds) {
  if (seconds === null || seconds === undefined) return "unknown";
  if (seconds < 60) return seconds + " s";
  if (seconds < 3600) return Math.floor(seconds / 60) + " min " + (seconds % 60) + " s";
  return Math.floor(seconds / 3600) + " h " + Math.floor((seconds % 3600) / 60) + " min";
}

function millis(ms) {
  if (ms === null || ms === undefined) return "unknown";
  return ms < 10000 ? ms + " ms" : (ms / 1000).toFixed(1) + " s";
}

const READ_TIMEOUT_MS = 5000;

/** One JSON view; throws if the daemon does not answer within READ_TIMEOUT_MS. */
async function read(path) {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), READ_TIMEOUT_MS);
  try {
    const r = await fetch(path, { cache: "no-store", signal: abort.signal });
    let body = null;
    try {
      body = await r.json();
    } catch (e) {
      body = { error: "not JSON (HTTP " + r.status + ")" };
    }
    return { status: r.status, body };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A view that may not answer (it waits on Kafka): its failure is shown, not thrown, with the last
 * answer it gave (view.stale says since when) drawn meanwhile.
 */
async function readOrSay(path) {
  let view;
  try {
    view = await read(path);
  } catch (e) {
    view = { status: 0, body: { error: "the daemon gave no answer for " + path + " within " + READ_TIMEOUT_MS / 1000 + " s" } };
  }
  if (view.status === 200) {
    lastGood.set(path, { view, at: Date.now() });
    return view;
  }
  const good = lastGood.get(path);
  return good ? { status: view.status, body: good.view.body, error: view.body.error, stale: good.at } : view;
}

function failure(view, what) {
  return view.error || (view.status !== 200 && view.body && view.body.error) || what;
}

/** What the operator should run next, by the workflow's state. */
function nextStep(w) {
  const n = w.name;
  switch (w.state) {
    case "CREATED":
    case "COPYING":
      if (w.copy_error) {
        return w.copy_heals ? ["the copy stopped; the daemon starts it again once what it names answers", null]
          : ["fix what stopped the copy (see Errors), then resume it", "reshard workflow resume " + n];
      }
      return ["the copy runs; nothing to do until it is done", null];
    case "RUNNING":
      return ["check, then switch reads", "reshard workflow diff " + n + "; reshard workflow switch-traffic " + n + " --reads"];
    case "READS_SWITCHED":
      return ["switch writes", "reshard workflow switch-traffic " + n + " --writes"];
    case "SWITCHING_WRITES":
      return ["the write switch runs", null];
    case "WRITES_SWITCHED":
      return ["finish, or move writes back", "reshard workflow complete " + n + "   (or: reshard workflow reverse-traffic " + n + ")"];
    case "REVERSING":
      return ["writes move back to the source", null];
    default:
      return ["nothing: the workflow is " + String(w.state).toLowerCase(), null];
  }
}

function steps(state) {
  const at = STEPS.indexOf(state === "SWITCHING_WRITES" ? "READS_SWITCHED" : state === "REVERSING" ? "WRITES_SWITCHED" : state);
  return el("ol", { class: "steps" }, STEPS.map((s, i) => {
    const cls = s === state ? "current" : at >= 0 && i < at ? "done" : at >= 0 && i === at ? "current" : "";
    return el("li", { class: cls, "data-step": s }, s.toLowerCase().replace("_", " "));
  }));
}

function copyTable(copy, stoppedCopy) {
  if (!copy) return null;
  const pct = copy.estimated_rows > 0 ? Math.min(100, Math.round((100 * copy.rows_copied) / copy.estimated_rows)) : null;
  const head = el("p", { class: "copy-total" },
    "copy: ", el("span", { class: "rows" }, number(copy.rows_copied)), " of about ", number(copy.estimated_rows), " rows",
    copy.done ? " — done" : stoppedCopy ? " — stopped (see Errors)" : " — " + number(copy.rows_per_s) + " rows/s, about " + duration(copy.eta_s) + " left",
    " ", bar(copy.done ? 100 : pct));
  const rows = (copy.tables || []).map(t => el("tr", { class: "copy-row", "data-table": t.table },
    el("td", {}, t.table), el("td", {}, t.state.toLowerCase()),
    el("td", { class: "num rows" }, number(t.rows_copied)), el("td", { class: "num" }, number(t.estimated_rows)),
    el("td", {}, bar(t.state === "DONE" ? 100 : t.estimated_rows > 0 ? Math.min(100, Math.round((100 * t.rows_copied) / t.estimated_rows)) : null)),
    el("td", { class: "num" }, stoppedCopy || t.rows_per_s === null || t.rows_per_s === undefined ? "" : number(t.rows_per_s) + " rows/s"),
    el("td", {}, stoppedCopy || t.eta_s === null || t.eta_s === undefined ? "" : "about " + duration(t.eta_s) + " left")));
  return el("div", {}, head, el("table", {}, el("thead", {}, el("tr", {},
    el("th", {}, "table"), el("th", {}, "state"), el("th", {}, "rows copied"), el("th", {}, "estimated"), el("th", {}, ""), el("th", {}, "rate"), el("th", {}, "time left"))),
    el("tbody", {}, rows)));
}

function bar(pct) {
  const b = el("span", { class: "bar", title: pct === null ? "unknown" : pct + " %" });
  b.append(el("span", { style: "width:" + (pct === null ? 0 : pct) + "%" }));
  return b;
}

function lagChart(key, now) {
  const points = lagHistory.get(key) || [];
  const w = 240, h = 36;
  const max = Math.max(100, ...points.map(p => p[1]));
  const s = svg("svg", { class: "lag", width: w, height: h, viewBox: "0 0 " + w + " " + h, role: "img" });
  const title = svg("title", {});
  title.textContent = "lag over the last " + Math.round(LAG_WINDOW_MS / 60000) + " minutes, top " + millis(max);
  s.append(title);
  const coords = points.map(p => {
    const x = w - ((now - p[0]) / LAG_WINDOW_MS) * w;
    const y = h - 2 - (p[1] / max) * (h - 4);
    return x.toFixed(1) + "," + y.toFixed(1);
  });
  if (coords.length > 0) s.append(svg("polyline", { points: coords.join(" ") }));
  return s;
}

function remember(key, lag, now) {
  const points = lagHistory.get(key) || [];
  if (lag !== null && lag !== undefined) points.push([now, lag]);
  while (points.length > 0 && now - points[0][0] > LAG_WINDOW_MS) points.shift();
  lagHistory.set(key, points);
}

function streamsTable(w, now) {
  if (!w.streams || w.streams.length === 0) return null;
  const notCapturing = new Set((w.captures || []).filter(c => c.state !== "RUNNING").map(c => c.shard));
  const rows = w.streams.map(st => {
    const key = w.name + " " + st.direction + " " + st.source + ">" + st.target;
    const blind = String(st.source).split(",").filter(s => notCapturing.has(s));
    remember(key, blind.length > 0 ? null : st.lag_ms, now);
    return el("tr", { class: "stream-row", "data-target": st.target },
      el("td", {}, st.direction), el("td", {}, st.source + " → " + st.target), el("td", {}, String(st.state).toLowerCase()),
      el("td", { class: "num" }, blind.length > 0 ? "unknown: capture of " + blind.join(", ") + " not running" : millis(st.lag_ms)),
      el("td", {}, lagChart(key, now)));
  });
  return el("table", {}, el("thead", {}, el("tr", {}, el("th", {}, "stream"), el("th", {}, "from → to"),
    el("th", {}, "state"), el("th", {}, "lag"), el("th", {}, "lag, last minutes"))), el("tbody", {}, rows));
}

function workflowCard(w, now) {
  const [what, command] = nextStep(w);
  const diff = w.diff_running ? "a diff runs now" : w.last_diff_clean === true ? "last diff clean"
    : w.last_diff_clean === false ? "last diff found differences" : "no diff yet";
  return el("div", { class: "workflow", "data-name": w.name, "data-state": w.state },
    el("h3", {}, w.name, " ", el("span", { class: "state pill" }, w.state)),
    el("p", {}, "keyspace ", el("b", {}, w.keyspace), ": ", (w.sources || []).join(", "), " → ", (w.targets || []).join(", "),
      w.hosted === false && !["COMPLETED", "CANCELLED"].includes(w.state) ? " (not run by this daemon)" : ""),
    steps(w.state),
    el("p", { class: "next" }, "next: ", what, command ? ": " : null, command ? el("code", {}, command) : null),
    w.copy ? copyTable(w.copy, !!w.copy_error) : w.copy_done ? el("p", { class: "copy-total" }, "copy: done") : null,
    streamsTable(w, now),
    el("p", { class: "diff" }, diff));
}

/** Every error the views hold, with what to do. */
function errors(health, workflows, keyspaces) {
  const out = [];
  if (workflows.status !== 200) out.push([failure(workflows, "the workflows cannot be read"), "check that Kafka runs: reshard cluster status"]);
  if (keyspaces.status !== 200) out.push([failure(keyspaces, "the shard maps cannot be read"), "check that Kafka runs: reshard cluster status"]);
  for (const w of Array.isArray(workflows.body) ? workflows.body : []) {
    if (w.last_error) out.push(["workflow " + w.name + ": " + w.last_error, w.way_on || (w.copy_error && w.copy_heals === false
      ? "it waits for you: fix what it names, then run reshard workflow resume " + w.name
      : "see reshard workflow status " + w.name)]);
    if (w.copy_error && !(w.last_error && w.last_error.includes(w.copy_error))) {
      out.push(["workflow " + w.name + " copy: " + w.copy_error, w.copy_heals
        ? "nothing: the daemon starts the copy again by itself once what it names answers"
        : "it waits for you: fix what it names, then run reshard workflow resume " + w.name]);
    }
    if (w.capture_gap) out.push(["workflow " + w.name + ": changes were skipped (" + JSON.stringify(w.capture_gap) + ")", "run reshard workflow diff " + w.name + " until it is clean"]);
  }
  for (const s of health.body.services || []) {
    if (s.state === "FAILED" || s.state === "RETRYING") out.push([s.name + " " + s.state.toLowerCase() + ": " + (s.detail || ""),
      s.state === "FAILED" ? "it does not start again by itself: fix what it names, then restart the daemon or run the way on it names"
        : /workflow resume/.test(s.detail || "") ? "it waits for you: fix the cause it names, then run the resume it names"
        : "it retries by itself; check the server or broker it names"]);
  }
  for (const k of Array.isArray(keyspaces.body) ? keyspaces.body : []) {
    if (k.error) out.push(["keyspace " + k.keyspace + ": " + k.error, null]);
  }
  return out;
}

/** Says that what follows is the last answer, not a current one. */
function staleNote(view) {
  return view.stale ? el("p", { class: "bad stale" }, "as of " + clock(view.stale) + ", the last answer: " + failure(view, "no answer now")) : null;
}

function replace(id, nodes) {
  const target = document.getElementById(id);
  target.replaceChildren(...nodes);
}

function draw(health, workflows, keyspaces, now) {
  const status = health.body.status || "unknown";
  const pill = document.getElementById("health");
  pill.textContent = status;
  pill.className = "pill " + status;
  document.getElementById("conn").textContent = "updated " + clock(now);
  const errs = errors(health, workflows, keyspaces);
  replace("errors", errs.length === 0 ? [el("li", { class: "none" }, "none")]
    : errs.map(([what, todo]) => el("li", { class: "err" }, what, todo ? el("span", { class: "todo" }, "what to do: " + todo) : null)));
  const wfs = Array.isArray(workflows.body) ? workflows.body : [];
  replace("workflows", [staleNote(workflows)].concat(wfs.length === 0 ? [el("p", { class: "none" }, workflows.status === 200 || workflows.stale ? "none" : "unknown: the workflows cannot be read")]
    : wfs.map(w => workflowCard(w, now))).filter(n => n !== null));
  const kss = Array.isArray(keyspaces.body) ? keyspaces.body : [];
  replace("keyspaces", [staleNote(keyspaces)].concat(kss.length === 0 ? [el("p", { class: "none" }, keyspaces.status === 200 || keyspaces.stale ? "none" : "unknown: the shard maps cannot be read")] : kss.map(k => el("div", { class: "keyspace", "data-keyspace": k.keyspace },
    el("h3", {}, k.keyspace, k.version ? " — shard map v" + k.version : ""),
    k.shards ? el("table", {}, el("thead", {}, el("tr", {}, ["shard", "server", "epoch", "reads", "writes"].map(h => el("th", {}, h)))),
      el("tbody", {}, k.shards.map(s => el("tr", { "data-shard": s.name }, el("td", {}, s.name), el("td", {}, s.server),
        el("td", { class: "num" }, s.epoch), el("td", {}, s.reads ? "yes" : "no"), el("td", {}, s.writes ? "yes" : "no"))))) : null,
    k.stale ? el("p", { class: "bad stale" }, "as last read; " + k.error) : null))).filter(n => n !== null));
  const tbody = document.querySelector("#services tbody");
  tbody.replaceChildren(...(health.body.services || []).map(s => el("tr", { "data-service": s.name, class: s.state === "FAILED" || s.state === "RETRYING" ? "bad" : "" },
    el("td", {}, s.name), el("td", {}, s.state.toLowerCase()), el("td", {}, s.detail || ""))));
}

async function poll() {
  const now = Date.now();
  try {
    const [health, workflows, keyspaces] = await Promise.all([read("/health"), readOrSay("/workflows"), readOrSay("/keyspaces")]);
    lastAnswer = now;
    downSince = null;
    draw(health, workflows, keyspaces, now);
  } catch (e) {
    downSince = downSince || now;
    const pill = document.getElementById("health");
    pill.textContent = "no answer";
    pill.className = "pill degraded";
    document.getElementById("conn").textContent = "the daemon has not answered since " + clock(downSince)
      + (lastAnswer ? " (last answer " + clock(lastAnswer) + "; what follows is from then)" : "")
      + ": is it running?";
  }
  setTimeout(poll, POLL_MS);
}

poll();
