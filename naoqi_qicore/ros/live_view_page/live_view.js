// Live view of behavior_runner: follows /events (the runner's state as JSON), shows the
// status, the controls (sent to /control/<name>), the focus and the errors, and hands the
// diagram to DiagramView (diagram.js); RobotView (robot.js) shows the robot.
import {DiagramView} from "/diagram.js";
import {RobotView} from "/robot.js";

const RECONNECT_MS = 2000;
// statuses in which each control makes sense
const ENABLED = {
  play: ["LOADED", "STOPPED", "FINISHED", "ERROR"],
  pause: ["PLAYING"],
  resume: ["PAUSED"],
  stop: ["PLAYING", "PAUSED"],
  goto: ["LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR"],
};

function element(id) {
  return document.getElementById(id);
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

const diagram = new DiagramView(send);
// the 3D robot loads once the diagram is shown (or 2 s have passed): the diagram first
const robot = new RobotView(Promise.race([
  diagram.shown, new Promise((resolve) => setTimeout(resolve, 2000))]));
// what the page shows, for whoever drives it (tests, benchmarks)
window.liveView = {diagram: diagram, robot: robot};

// -- event stream ------------------------------------------------------------------------
function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => {
    setConnected(true);
    showState(JSON.parse(event.data));
  });
  source.onerror = () => {
    setConnected(false);
    diagram.key = "";  // the runner may have restarted with another behavior
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
  const status = state.status || "IDLE";
  element("behavior").textContent = state.behavior || "no behavior loaded";
  const badge = element("status");
  badge.textContent = status;
  badge.dataset.status = status;
  for (const [control, statuses] of Object.entries(ENABLED)) {
    element(control).disabled = !statuses.includes(status);
  }
  showGotoLabels(state.timeline || {labels: []});
  element("labels").textContent = (state.labels || []).join(", ") || "–";
  element("active").textContent = (state.active_boxes || []).join(", ") || "–";
  showFocus(state.focus || {});
  showProblems("errors", state.errors || [], state.error_count || 0);
  showProblems("warnings", state.warnings || [], state.warning_count || 0);
  const key = (state.behavior || "") + "#" + (state.diagram || 0);
  if (state.diagram && key !== diagram.key) {
    diagram.state = state;
    diagram.load(key);
  } else {
    diagram.update(state);
  }
}

// the labels of the root timeline, where Go goes
function showGotoLabels(timeline) {
  const select = element("goto-label");
  const names = timeline.labels.map((item) => item.label + "@" + item.frame).join(",");
  if (select.dataset.names !== names) {  // rebuilt only when the labels change
    select.dataset.names = names;
    select.replaceChildren(...timeline.labels.map((item) => {
      const option = document.createElement("option");
      option.value = item.label;
      option.textContent = item.label + " (frame " + item.frame + ")";
      return option;
    }));
  }
  element("goto").disabled = element("goto").disabled || timeline.labels.length === 0;
}

// the focused activity, and beside it what the runner says of the change (who made it...)
function showFocus(focus) {
  element("focus").textContent = focus.focused_activity || "none";
  const details = focus.details || [];
  element("focus-detail").textContent = details.length ? "(" + details.join("; ") + ")" : "";
}

// the run's errors, or its warnings ("errors"/"warnings": the ids of their section, count
// and list)
function showProblems(name, problems, count) {
  element(name + "-section").hidden = count === 0;
  element(name.slice(0, -1) + "-count").textContent = String(count);
  element(name).replaceChildren(...problems.map((problem) => {
    const item = document.createElement("li");
    const where = document.createElement("strong");
    where.textContent = problem.box_path + " (" + problem.where + ")";
    item.appendChild(where);
    const kind = problem.exception_type ? problem.exception_type + ": " : "";
    item.appendChild(document.createTextNode(" " + kind + problem.message));
    return item;
  }));
}

for (const control of ["play", "pause", "resume", "stop"]) {
  element(control).addEventListener("click", () => send(control));
}
element("goto").addEventListener("click", () => send("goto", element("goto-label").value));
connect();
