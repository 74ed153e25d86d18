// Live view of behavior_runner: follows /events (the runner's state as JSON), shows the
// diagram pages of /pages with the running boxes, the current states and the boxes in
// error highlighted (CSS classes on the SVG elements box-<object name> and
// state-<owner object name>-<state index>), and sends the controls to /control/<name>.
"use strict";

const RECONNECT_MS = 2000;
const XLINK = "http://www.w3.org/1999/xlink";
// statuses in which each control makes sense
const ENABLED = {
  play: ["LOADED", "STOPPED", "FINISHED", "ERROR"],
  pause: ["PLAYING"],
  resume: ["PAUSED"],
  stop: ["PLAYING", "PAUSED"],
  goto: ["LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR"],
};
const HIGHLIGHTS = ["active", "ran", "current", "failed"];

const view = {
  state: null,         // the newest event
  diagramKey: "",      // behavior name and diagram number of the pages shown
  pages: [],           // page names, root first
  page: 0,             // page shown
  frameSeen: null,     // {frame, at (ms), fps, playing, count}: for the timeline cursor
};

function element(id) {
  return document.getElementById(id);
}

// -- event stream ------------------------------------------------------------------------
function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => {
    setConnected(true);
    showState(JSON.parse(event.data));
  });
  source.onerror = () => {
    setConnected(false);
    view.diagramKey = "";  // the runner may have restarted with another behavior
    if (source.readyState === EventSource.CLOSED) {
      setTimeout(connect, RECONNECT_MS);  // EventSource gives up after a refused stream
    }
  };
}

function setConnected(connected) {
  const line = element("connection");
  line.dataset.connected = String(connected);
  line.textContent = connected ? "live" : "disconnected: reconnecting…";
}

// -- state -------------------------------------------------------------------------------
function showState(state) {
  view.state = state;
  const status = state.status || "IDLE";

  element("behavior").textContent = state.behavior || "no behavior loaded";
  const badge = element("status");
  badge.textContent = status;
  badge.dataset.status = status;
  for (const [control, statuses] of Object.entries(ENABLED)) {
    element(control).disabled = !statuses.includes(status);
  }
  showTimeline(state);
  showFocus(state.focus || {});
  showErrors(state.errors || [], state.error_count || 0);
  const key = (state.behavior || "") + "#" + (state.diagram || 0);
  if (state.diagram && key !== view.diagramKey) {
    view.diagramKey = key;
    loadPages();
  } else {
    highlight();
  }
}

function showTimeline(state) {
  const timeline = state.timeline || {frame_count: 0, fps: 0, labels: []};
  element("frame").textContent = String(state.frame || 0);
  element("frame-count").textContent = String(timeline.frame_count);
  element("fps").textContent = String(timeline.fps);
  element("labels").textContent = (state.labels || []).join(", ") || "–";
  element("active").textContent = (state.active_boxes || []).join(", ") || "–";
  view.frameSeen = {frame: state.frame || 0, at: performance.now(), fps: timeline.fps,
                    playing: state.status === "PLAYING", count: timeline.frame_count};

  const marks = element("timeline-labels");
  const select = element("goto-label");
  const names = timeline.labels.map((item) => item.label + "@" + item.frame).join(",");
  if (marks.dataset.names !== names) {  // rebuilt only when the labels change
    marks.dataset.names = names;
    marks.replaceChildren();
    select.replaceChildren();
    for (const item of timeline.labels) {
      const mark = document.createElement("button");
      mark.type = "button";
      mark.className = "timeline-label";
      mark.textContent = item.label;
      mark.title = "go to " + item.label + " (frame " + item.frame + ")";
      mark.dataset.label = item.label;
      mark.style.left = percent(item.frame, timeline.frame_count);
      mark.addEventListener("click", () => send("goto", item.label));
      marks.appendChild(mark);
      const option = document.createElement("option");
      option.value = item.label;
      option.textContent = item.label + " (frame " + item.frame + ")";
      select.appendChild(option);
    }
  }
  const current = new Set(state.labels || []);
  for (const mark of marks.children) {
    mark.classList.toggle("current", current.has(mark.dataset.label));
  }
  element("goto").disabled = element("goto").disabled || timeline.labels.length === 0;
}

function percent(frame, count) {
  return count > 0 ? Math.max(0, Math.min(100, (100 * frame) / count)) + "%" : "0%";
}

// moves the cursor between two states (they come a few times a second while playing)
function animateCursor() {
  const seen = view.frameSeen;
  if (seen) {
    let frame = seen.frame;
    if (seen.playing && seen.fps > 0) {
      frame = Math.min(seen.count || frame, frame + ((performance.now() - seen.at) / 1000) * seen.fps);
    }
    element("timeline-cursor").style.left = percent(frame, seen.count);
    element("timeline-progress").style.width = percent(frame, seen.count);
  }
  requestAnimationFrame(animateCursor);
}

function showFocus(focus) {
  element("focus").textContent = focus.focused_activity || "none";
  const details = [];
  if (focus.previous_activity) {
    details.push("previous " + focus.previous_activity);
  }
  if (focus.start_reason) {
    details.push("started: " + focus.start_reason);
  }
  if (focus.stop_reason) {
    details.push("previous stopped: " + focus.stop_reason);
  }
  if (focus.focus_stack && focus.focus_stack.length) {
    details.push("stack " + focus.focus_stack.join(", "));
  }
  element("focus-detail").textContent = details.length ? "(" + details.join("; ") + ")" : "";
}

function showErrors(errors, count) {
  element("error-count").textContent = String(count);
  const list = element("errors");
  list.replaceChildren();
  for (const error of errors) {
    const item = document.createElement("li");
    const where = document.createElement("strong");
    where.textContent = error.box_path + " (" + error.where + ")";
    item.appendChild(where);
    const kind = error.exception_type ? error.exception_type + ": " : "";
    item.appendChild(document.createTextNode(" " + kind + error.message));
    list.appendChild(item);
  }
}

// -- diagram -----------------------------------------------------------------------------
async function loadPages() {
  const key = view.diagramKey;
  try {
    const answer = await fetch("/pages");
    const listing = await answer.json();
    if (!answer.ok) {
      throw new Error(listing.error || answer.statusText);
    }
    if (key !== view.diagramKey) {
      return;  // another behavior came meanwhile
    }
    view.pages = listing.pages;
    view.page = 0;
    showPageNames();
    await showPage(0);
  } catch (error) {
    element("diagram").replaceChildren(note("diagram unavailable: " + error.message));
  }
}

function showPageNames() {
  const nav = element("pages");
  nav.replaceChildren();
  view.pages.forEach((name, index) => {
    const tab = document.createElement("button");
    tab.type = "button";
    tab.textContent = name;
    tab.className = "page" + (index === view.page ? " shown" : "");
    tab.addEventListener("click", () => showPage(index));
    nav.appendChild(tab);
  });
}

async function showPage(index) {
  const answer = await fetch("/pages/" + index + ".svg");
  if (!answer.ok) {
    element("diagram").replaceChildren(note("page " + index + " unavailable"));
    return;
  }
  const parsed = new DOMParser().parseFromString(await answer.text(), "image/svg+xml");
  const svg = parsed.documentElement;
  if (svg.nodeName !== "svg") {
    element("diagram").replaceChildren(note("page " + index + " is not an SVG image"));
    return;
  }
  svg.querySelectorAll("script").forEach((script) => script.remove());
  for (const box of svg.querySelectorAll("g.box")) {
    const tip = tooltipOf(box);
    if (tip) {
      box.dataset.tooltip = tip.get();
    }
  }
  const shown = document.importNode(svg, true);
  // a box owning a page links to "<page>.svg": shown here instead
  for (const link of shown.querySelectorAll("a")) {
    const target = link.getAttribute("href") || link.getAttributeNS(XLINK, "href") || "";
    const page = view.pages.indexOf(target.replace(/\.svg$/, ""));
    if (page >= 0) {
      link.addEventListener("click", (event) => {
        event.preventDefault();
        showPage(page);
      });
    } else if (target) {
      link.removeAttribute("href");  // nothing to open outside the view
      link.removeAttributeNS(XLINK, "href");
    }
  }
  element("diagram").replaceChildren(shown);
  view.page = index;
  showPageNames();
  highlight();
}

function note(text) {
  const paragraph = document.createElement("p");
  paragraph.className = "note";
  paragraph.textContent = text;
  return paragraph;
}

// the tooltip of a box: its link's xlink:title, else its <title>
function tooltipOf(box) {
  const link = box.querySelector("a");
  if (link && link.hasAttributeNS(XLINK, "title")) {
    return {get: () => link.getAttributeNS(XLINK, "title"),
            set: (text) => link.setAttributeNS(XLINK, "xlink:title", text)};
  }
  const title = box.querySelector(":scope > title");
  return title && {get: () => title.textContent, set: (text) => { title.textContent = text; }};
}

// toggles the classes of the shown page's elements after the state
function highlight() {
  const diagram = element("diagram");
  const state = view.state;
  if (!state || !diagram.querySelector("svg")) {
    return;
  }
  for (const name of HIGHLIGHTS) {
    diagram.querySelectorAll("." + name).forEach((node) => node.classList.remove(name));
  }
  for (const box of diagram.querySelectorAll("g.box")) {
    const tip = tooltipOf(box);
    if (tip && box.dataset.tooltip !== undefined) {
      tip.set(box.dataset.tooltip);
    }
  }
  const mark = (id, name) => {
    const node = document.getElementById(id);
    if (node && diagram.contains(node)) {
      node.classList.add(name);
    }
    return node;
  };
  (state.ran_objects || []).forEach((name) => mark("box-" + name, "ran"));
  (state.active_objects || []).forEach((name) => mark("box-" + name, "active"));
  (state.current_states || []).forEach((item) => mark("state-" + item.owner + "-" + item.index, "current"));
  for (const error of state.errors || []) {
    for (const name of error.objects) {
      const node = mark("box-" + name, "failed");
      const tip = node && tooltipOf(node);
      if (tip) {
        tip.set(tip.get() + "\n" + error.where + ": " + error.message);
      }
    }
  }
}

// -- controls ----------------------------------------------------------------------------
async function send(control, label) {
  const answerLine = element("answer");
  try {
    const answer = await fetch("/control/" + control, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(label ? {label: label} : {}),
    });
    const result = await answer.json();
    answerLine.textContent = result.message;
    answerLine.dataset.success = String(Boolean(result.success));
  } catch (error) {
    answerLine.textContent = control + ": " + error.message;
    answerLine.dataset.success = "false";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  for (const control of ["play", "pause", "resume", "stop"]) {
    element(control).addEventListener("click", () => send(control));
  }
  element("goto").addEventListener("click", () => send("goto", element("goto-label").value));
  connect();
  requestAnimationFrame(animateCursor);
});
