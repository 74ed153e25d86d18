// The diagram part of the live view: the page of the box being looked at (an SVG drawn by
// the server when first asked, kept here), a breadcrumb from the root, a collapsible tree
// of the boxes having a diagram, "follow the run" (the innermost running box's diagram),
// zoom and pan, the timeline bar of the diagram in view, and the running boxes, current
// states and boxes in error highlighted (CSS classes on the SVG elements box-<object name>
// and state-<owner object name>-<state index>).  The address names the diagram shown
// (#box=<box path>, e.g. #box=root/Greeting/Wave%20Arms) while the run is not followed:
// opening such an address shows that box's diagram.

const XLINK = "http://www.w3.org/1999/xlink";
const HIGHLIGHTS = ["active", "ran", "current", "failed"];
// zoom of the drawing's natural size (10 pt text is 13 px at 1): the default fits the width
// but keeps the text readable (READABLE) and not huge (LARGEST); the buttons step by STEP
const READABLE = 0.9;
const LARGEST = 1.25;
const STEP = 1.25;
const SMALLEST = 0.1;
// a press moving further than this (px) pans instead of clicking
const DRAG = 4;
// the longest box path a message repeats (characters)
const SHOWN_PATH = 200;

// the box path the address names (#box=<path>), or null
function linkedPath() {
  return new URLSearchParams(location.hash.slice(1)).get("box");
}

// the address of the diagram of the box at ``path`` (null: the page's own, following the run)
function addressOf(path) {
  const base = location.pathname + location.search;
  return path === null ? base : base + "#box=" + path.split("/").map(encodeURIComponent).join("/");
}

function element(id) {
  return document.getElementById(id);
}

function note(text) {
  const paragraph = document.createElement("p");
  paragraph.className = "note";
  paragraph.textContent = text;
  return paragraph;
}

function percent(frame, count) {
  return count > 0 ? Math.max(0, Math.min(100, (100 * frame) / count)) + "%" : "0%";
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

export class DiagramView {
  constructor(send) {
    this.send = send;             // send(control, label): the page's controls
    this.listing = null;          // GET /pages
    this.key = "";                // behavior name and diagram number of the listing
    this.page = -1;               // page shown
    this.asked = -1;              // page last asked for (shown, or on its way)
    this.depth = [];              // depth of each page in the tree (root 0)
    this.treeButtons = [];        // page -> its button in the tree
    this.svgTexts = new Map();    // page -> SVG text, as the server drew it
    this.showing = 0;             // number of the latest show(): an older one gives way
    this.state = null;            // the newest event
    this.follow = true;
    this.scale = 0;               // zoom of the page shown (0: not chosen yet)
    this.natural = {width: 0, height: 0};
    this.frameSeen = null;        // {frame, at, fps, playing, count}: the cursor between events
    this.cursorAt = "";           // where the cursor is drawn
    this.centeredOn = "";         // the running boxes last brought into view
    // resolves once a page is shown for the first time
    this.shown = new Promise((resolve) => { this.firstShown = resolve; });

    element("tree-toggle").addEventListener("click", () => this.toggleTree());
    const follow = element("follow");
    follow.addEventListener("change", () => {
      this.follow = follow.checked;
      this.showAddress();
      if (this.follow && this.state) {
        this.update(this.state);
      }
    });
    window.addEventListener("hashchange", () => {
      if (this.listing) {
        this.openLinked(Math.max(this.page, 0));
      }
    });
    element("zoom-in").addEventListener("click", () => this.zoom(this.scale * STEP));
    element("zoom-out").addEventListener("click", () => this.zoom(this.scale / STEP));
    element("zoom-fit").addEventListener("click", () => this.zoom(this.fitScale()));
    this.listenForPanAndZoom(element("diagram"));
    requestAnimationFrame(() => this.animateCursor());
  }

  // -- pages -------------------------------------------------------------------------------
  // a new behavior or diagram: its listing, then the page to show
  async load(key) {
    this.key = key;
    try {
      const answer = await fetch("/pages");
      const listing = await answer.json();
      if (!answer.ok) {
        throw new Error(listing.error || answer.statusText);
      }
      if (key !== this.key) {
        return;  // another behavior came meanwhile
      }
      this.listing = listing;
      this.svgTexts.clear();
      this.depth = listing.pages.map(() => 0);
      listing.pages.forEach((page, index) => {
        this.depth[index] = page.parent >= 0 ? this.depth[page.parent] + 1 : 0;
      });
      this.page = -1;
      this.asked = -1;
      this.buildTree();
      const target = this.state ? this.runningPage(this.state) : -1;
      await this.openLinked(target >= 0 ? target : 0);
    } catch (error) {
      element("diagram").replaceChildren(note("diagram unavailable: " + error.message));
    }
  }

  // the page of the innermost running box: its own diagram, or the one holding it
  runningPage(state) {
    if (!this.listing) {
      return -1;
    }
    let best = -1;
    for (const name of state.active_objects || []) {
      const place = this.listing.boxes[name];
      const page = name === this.listing.pages[0].object ? 0
        : place ? (place[1] >= 0 ? place[1] : place[0]) : -1;
      if (page < 0) {
        continue;
      }
      const deeper = best < 0 || this.depth[page] > this.depth[best];
      const same = best >= 0 && this.depth[page] === this.depth[best];
      if (deeper || (same && page === this.page)) {
        best = page;
      }
    }
    return best;
  }

  // a page chosen by the user: following the run stops
  open(index) {
    if (this.follow) {
      this.follow = false;
      element("follow").checked = false;
    }
    this.tell("");
    return this.show(index);
  }

  // the page the address names (#box=<path>), else page ``otherwise`` (the address naming
  // no box having a diagram is said above the diagram)
  openLinked(otherwise) {
    const path = linkedPath();
    if (path === null) {
      return this.show(otherwise);
    }
    const index = this.listing.pages.findIndex((page) => page.path === path);
    if (index >= 0) {
      return this.open(index);
    }
    const shown = path.length > SHOWN_PATH ? path.slice(0, SHOWN_PATH) + "…" : path;
    this.tell("no box of " + this.title(0) + " has the path \u201c" + shown
              + "\u201d and a diagram: see Boxes for those that have one");
    return this.show(otherwise);
  }

  // a line above the diagram ("": none)
  tell(text) {
    const line = element("diagram-note");
    line.textContent = text;
    line.hidden = !text;
  }

  // the address names the diagram shown, unless the run is followed
  showAddress() {
    if (!this.listing || this.page < 0) {
      return;
    }
    const address = addressOf(this.follow ? null : this.listing.pages[this.page].path);
    if (address !== location.pathname + location.search + location.hash) {
      history.replaceState(null, "", address);
    }
  }

  async show(index) {
    const token = ++this.showing;
    this.asked = index;
    let text = this.svgTexts.get(index);
    if (text === undefined) {
      const answer = await fetch("/pages/" + index + ".svg");
      if (!answer.ok) {
        if (token === this.showing) {
          element("diagram").replaceChildren(note("page " + index + " unavailable"));
        }
        return;
      }
      text = await answer.text();
      this.svgTexts.set(index, text);
    }
    if (token !== this.showing) {
      return;  // another page was asked for meanwhile
    }
    const svg = new DOMParser().parseFromString(text, "image/svg+xml").documentElement;
    if (svg.nodeName !== "svg") {
      element("diagram").replaceChildren(note("page " + index + " is not an SVG image"));
      return;
    }
    const shown = this.prepare(document.importNode(svg, true));
    const changed = index !== this.page;
    element("diagram").replaceChildren(shown);
    this.page = index;
    this.natural = this.naturalSize(shown);
    if (changed || !this.scale) {
      this.scale = this.fitScale();
      this.centeredOn = "";
    }
    this.applyScale(this.scale);
    this.showPlace();
    this.showAddress();
    this.highlight();
    this.showTimeline();
    this.firstShown();
  }

  // the SVG made safe and live: no script, boxes owning a page open it when clicked
  prepare(svg) {
    svg.querySelectorAll("script, foreignObject").forEach((node) => node.remove());
    for (const box of svg.querySelectorAll("g.box")) {
      const tip = tooltipOf(box);
      if (tip) {
        box.dataset.tooltip = tip.get();
      }
      const place = this.listing.boxes[box.id.replace(/^box-/, "")];
      if (place && place[1] >= 0) {
        box.classList.add("opens");
        box.dataset.page = String(place[1]);
      }
    }
    for (const link of svg.querySelectorAll("a")) {
      link.removeAttribute("href");  // a box opens its page here, nothing opens elsewhere
      link.removeAttributeNS(XLINK, "href");
    }
    svg.removeAttribute("width");
    svg.removeAttribute("height");
    return svg;
  }

  naturalSize(svg) {
    const box = svg.viewBox.baseVal;
    // Graphviz draws in points: 4/3 px each at zoom 1
    return {width: (box.width * 4) / 3, height: (box.height * 4) / 3};
  }

  // -- where we are: breadcrumb and tree ---------------------------------------------------
  title(index) {
    const page = this.listing.pages[index];
    return index === 0 ? (this.listing.behavior || page.title) : page.title;
  }

  showPlace() {
    const trail = [];
    for (let index = this.page; index >= 0; index = this.listing.pages[index].parent) {
      trail.unshift(index);
    }
    const crumbs = trail.map((index) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = this.title(index);
      button.title = this.title(index);
      button.dataset.page = String(index);
      button.addEventListener("click", () => this.open(index));
      item.appendChild(button);
      return item;
    });
    element("breadcrumb").replaceChildren(...crumbs);
    this.treeButtons.forEach((button, index) => button.classList.toggle("shown", index === this.page));
    for (const index of trail) {
      const holder = this.treeButtons[index].closest("details");
      if (holder && index !== this.page) {
        holder.open = true;
      }
    }
    if (!element("tree").hidden) {
      this.treeButtons[this.page].scrollIntoView({block: "nearest"});
    }
  }

  buildTree() {
    const pages = this.listing.pages;
    const children = pages.map(() => []);
    pages.forEach((page, index) => {
      if (page.parent >= 0) {
        children[page.parent].push(index);
      }
    });
    this.treeButtons = pages.map((page, index) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = this.title(index);
      button.dataset.page = String(index);
      button.addEventListener("click", (event) => {
        event.preventDefault();  // a click on the name opens the page, not the branch
        this.open(index);
      });
      return button;
    });
    const branch = (index) => {
      const item = document.createElement("li");
      if (!children[index].length) {
        item.className = "leaf";
        item.appendChild(this.treeButtons[index]);
        return item;
      }
      const details = document.createElement("details");
      details.open = index === 0;
      const summary = document.createElement("summary");
      summary.appendChild(this.treeButtons[index]);
      const list = document.createElement("ul");
      list.append(...children[index].map(branch));
      details.append(summary, list);
      item.appendChild(details);
      return item;
    };
    const top = document.createElement("ul");
    top.appendChild(branch(0));
    element("tree").replaceChildren(top);
  }

  toggleTree() {
    const tree = element("tree");
    tree.hidden = !tree.hidden;
    element("tree-toggle").setAttribute("aria-expanded", String(!tree.hidden));
    if (!tree.hidden && this.page >= 0) {
      this.treeButtons[this.page].scrollIntoView({block: "nearest"});
    }
  }

  // -- the state of the run ----------------------------------------------------------------
  update(state) {
    this.state = state;
    if (!this.listing) {
      return;
    }
    if (this.follow) {
      const target = this.runningPage(state);
      if (target >= 0 && target !== this.asked) {
        this.show(target);
        return;
      }
    }
    this.highlight();
    this.showTimeline();
  }

  // toggles the classes of the shown page's elements after the state
  highlight() {
    const diagram = element("diagram");
    const state = this.state;
    if (!state || !diagram.querySelector("svg") || !this.listing) {
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
    const running = new Set(state.active_objects || []);
    this.treeButtons.forEach((button, index) => {
      button.classList.toggle("running", running.has(this.listing.pages[index].object));
    });
    if (this.follow) {
      this.bringRunningIntoView(diagram);
    }
  }

  // scrolls the running boxes of the page into view when they change (following the run)
  bringRunningIntoView(diagram) {
    const boxes = [...diagram.querySelectorAll("g.box.active")];
    const names = boxes.map((box) => box.id).join(" ");
    if (!boxes.length || names === this.centeredOn) {
      return;
    }
    this.centeredOn = names;
    const view = diagram.getBoundingClientRect();
    const box = boxes[boxes.length - 1].getBoundingClientRect();
    const inside = box.left >= view.left && box.right <= view.right && box.top >= view.top
      && box.bottom <= view.bottom;
    if (!inside) {
      diagram.scrollLeft += box.left - view.left - (view.width - box.width) / 2;
      diagram.scrollTop += box.top - view.top - (view.height - box.height) / 2;
    }
  }

  // -- timeline bar: the timeline of the diagram in view -----------------------------------
  showTimeline() {
    const state = this.state;
    const section = element("timeline");
    const page = this.listing && this.page >= 0 ? this.listing.pages[this.page] : null;
    const timeline = page ? page.timeline : null;
    if (!state || !timeline) {
      section.hidden = true;  // a flow diagram has no timeline
      this.frameSeen = null;
      return;
    }
    section.hidden = false;
    const root = this.page === 0;
    const entry = (state.current_states || []).find((item) => item.owner === page.object);
    const count = root && state.timeline.frame_count ? state.timeline.frame_count
      : timeline.frame_count;
    const frame = root ? state.frame || 0 : entry ? entry.frame : 0;
    element("frame").textContent = entry || root ? String(frame) : "–";
    element("frame-count").textContent = String(count);
    element("timeline-rate").textContent = timeline.plays ? "at " + timeline.fps + " fps"
      : timeline.states + " states";
    this.frameSeen = {frame: frame, at: performance.now(), fps: timeline.plays ? timeline.fps : 0,
                      playing: state.status === "PLAYING" && Boolean(entry), count: count};

    const marks = element("timeline-labels");
    const names = this.page + ":" + timeline.labels.map((item) => item.label + "@" + item.frame).join(",");
    if (marks.dataset.names !== names) {  // rebuilt only when the labels change
      marks.dataset.names = names;
      marks.replaceChildren(...timeline.labels.map((item) => {
        const mark = document.createElement(root ? "button" : "span");
        mark.className = "timeline-label";
        mark.textContent = item.label;
        mark.dataset.label = item.label;
        mark.dataset.frame = String(item.frame);
        mark.style.left = percent(item.frame, count);
        if (root) {
          mark.type = "button";
          mark.title = "go to " + item.label + " (frame " + item.frame + ")";
          mark.addEventListener("click", () => this.send("goto", item.label));
        } else {
          mark.title = item.label + " (frame " + item.frame + ")";
        }
        return mark;
      }));
    }
    // the labels of the current state: at the last label frame reached
    const reached = timeline.labels.filter((item) => item.frame <= frame).map((item) => item.frame);
    const at = entry || root ? Math.max(-1, ...reached) : -1;
    for (const mark of marks.children) {
      mark.classList.toggle("current", Number(mark.dataset.frame) === at);
    }
  }

  // moves the cursor between two events (they come a few times a second while playing)
  animateCursor() {
    const seen = this.frameSeen;
    if (seen) {
      let frame = seen.frame;
      if (seen.playing && seen.fps > 0) {
        frame = Math.min(seen.count || frame, frame + ((performance.now() - seen.at) / 1000) * seen.fps);
      }
      const at = percent(frame, seen.count);
      if (at !== this.cursorAt) {  // this runs every frame: the page changes only if it moved
        this.cursorAt = at;
        element("timeline-cursor").style.left = at;
        element("timeline-progress").style.width = at;
      }
    }
    requestAnimationFrame(() => this.animateCursor());
  }

  // -- zoom and pan ------------------------------------------------------------------------
  fitScale() {
    const width = element("diagram").clientWidth;
    const fit = this.natural.width > 0 ? (width - 16) / this.natural.width : 1;
    return Math.min(Math.max(fit, READABLE), LARGEST);
  }

  applyScale(scale) {
    const svg = element("diagram").querySelector("svg");
    if (!svg) {
      return;
    }
    this.scale = scale;
    svg.style.width = this.natural.width * scale + "px";
    svg.style.height = this.natural.height * scale + "px";
  }

  // zooms to ``scale`` keeping the point (x, y) of the view (default: its middle) in place
  zoom(scale, x, y) {
    const diagram = element("diagram");
    const bounded = Math.min(Math.max(scale, SMALLEST), 8);
    const px = x === undefined ? diagram.clientWidth / 2 : x;
    const py = y === undefined ? diagram.clientHeight / 2 : y;
    const ratio = bounded / (this.scale || 1);
    const left = (diagram.scrollLeft + px) * ratio - px;
    const top = (diagram.scrollTop + py) * ratio - py;
    this.applyScale(bounded);
    diagram.scrollLeft = left;
    diagram.scrollTop = top;
  }

  listenForPanAndZoom(diagram) {
    let press = null;
    diagram.addEventListener("wheel", (event) => {
      if (!event.ctrlKey) {
        return;  // the wheel scrolls; with Ctrl it zooms
      }
      event.preventDefault();
      const view = diagram.getBoundingClientRect();
      this.zoom(this.scale * Math.pow(STEP, -Math.sign(event.deltaY)),
                event.clientX - view.left, event.clientY - view.top);
    }, {passive: false});
    diagram.addEventListener("pointerdown", (event) => {
      if (event.button === 0) {
        press = {x: event.clientX, y: event.clientY, left: diagram.scrollLeft,
                 top: diagram.scrollTop, moved: false};
      }
    });
    diagram.addEventListener("pointermove", (event) => {
      if (!press) {
        return;
      }
      const dx = event.clientX - press.x;
      const dy = event.clientY - press.y;
      if (!press.moved && Math.hypot(dx, dy) > DRAG) {
        press.moved = true;
        diagram.classList.add("panning");
        diagram.setPointerCapture(event.pointerId);
      }
      if (press.moved) {
        diagram.scrollLeft = press.left - dx;
        diagram.scrollTop = press.top - dy;
      }
    });
    const release = (event) => {
      if (press && !press.moved && event.type === "pointerup") {
        const box = event.target.closest && event.target.closest("g.opens");
        if (box) {
          this.open(Number(box.dataset.page));
        }
      }
      press = null;
      diagram.classList.remove("panning");
    };
    diagram.addEventListener("pointerup", release);
    diagram.addEventListener("pointercancel", release);
  }
}
