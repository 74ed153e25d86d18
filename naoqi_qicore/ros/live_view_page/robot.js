// The robot part of the live view: follows /robot/events (what a person near the robot
// notices, as JSON) and draws NAO or Pepper in 3D (WebGL, with the three library served by
// the view) from /robot/figure, its joints moving as the robot reports them, its eyes and
// chest in their colours; beside it what it says and heard, where it was touched, its
// posture and Pepper's tablet.  Drag turns the view, the wheel zooms, a double-click resets.

const RECONNECT_MS = 2000;
// how long a sentence stays after it is said, what was heard and a touch stay (s)
const SPEECH_STAYS = 2.0;
const HEARD_STAYS = 4.0;
const TOUCH_STAYS = 3.0;
// the view at first: turned towards the robot's left front, from a little above
const START = {azimuth: 0.6, elevation: 0.2, zoom: 1};

function element(id) {
  return document.getElementById(id);
}

function now() {
  return Date.now() / 1000;
}

// whether WebGL is drawn by the processor (SwiftShader, llvmpipe), not by a graphics card
function drawnBySoftware() {
  const gl = document.createElement("canvas").getContext("webgl");
  if (!gl) {
    return true;
  }
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  const name = String(gl.getParameter(info ? info.UNMASKED_RENDERER_WEBGL : gl.RENDERER));
  const lose = gl.getExtension("WEBGL_lose_context");
  if (lose) {
    lose.loseContext();
  }
  return /swiftshader|llvmpipe|software/i.test(name);
}

// sets an element's text and whether it is hidden, touching the page only for a change
// (this runs every frame)
function showText(node, text, hidden) {
  if (node.textContent !== text) {
    node.textContent = text;
  }
  if (node.hidden !== hidden) {
    node.hidden = hidden;
  }
}

export class RobotView {
  // ``ready``: once it resolves, the 3D robot may load (the diagram first)
  constructor(ready) {
    this.ready = ready;
    this.state = null;           // the newest robot event
    this.joints = "";            // its joint angles and base position, as they came
    this.figure = null;          // GET /robot/figure
    this.scene = null;           // the drawing, once three is loaded and the figure built
    this.loading = "";           // the robot whose figure is being loaded
    this.frames = 0;             // frames drawn (for the frame rate)
    this.updates = 0;            // robot events received
    this.view = Object.assign({}, START);
    this.listenForTurnAndZoom(element("robot-stage"));
    this.connect();
    requestAnimationFrame((time) => this.draw(time));
  }

  connect() {
    const source = new EventSource("/robot/events");
    source.addEventListener("robot", (event) => this.show(JSON.parse(event.data)));
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED) {
        setTimeout(() => this.connect(), RECONNECT_MS);
      }
    };
  }

  // -- what the robot reports --------------------------------------------------------------
  show(state) {
    this.state = state;
    this.updates += 1;
    if (!state.connected) {
      this.note("the robot is not connected");
    } else if (state.robot && (!this.figure || this.figure.robot !== state.robot)) {
      this.load(state.robot);
    }
    const joints = JSON.stringify([state.joints, state.position]);
    if (this.scene && joints !== this.joints) {
      this.scene.aim(state.joints, state.position);
    }
    this.joints = joints;
    this.showLeds(state.leds);
    this.showBody(state);
    this.showTablet(state.tablet);
  }

  note(text) {
    const line = element("robot-note");
    line.textContent = text;
    line.hidden = !text;
  }

  async load(robot) {
    if (this.loading === robot) {
      return;
    }
    this.loading = robot;
    try {
      await this.ready;
      const answer = await fetch("/robot/figure");
      const figure = await answer.json();
      if (!answer.ok) {
        throw new Error(figure.error || answer.statusText);
      }
      const three = await import("/three/three.module.js").catch(() => {
        throw new Error("the three library is not installed (npm; see the docs)");
      });
      if (this.scene) {
        this.scene.dispose();
      }
      this.figure = figure;
      this.scene = new RobotScene(three, figure, element("robot-canvas"));
      this.scene.setView(this.view);
      if (this.state) {
        this.scene.aim(this.state.joints, this.state.position);
        this.showLeds(this.state.leds);
      }
      this.note("");
    } catch (error) {
      this.note("3D robot unavailable: " + error.message);
    } finally {
      this.loading = "";
    }
  }

  showLeds(leds) {
    const colors = [leds.eyes[0], leds.eyes[1], leds.chest];
    ["eye-left", "eye-right", "chest"].forEach((id, index) => {
      const swatch = element(id);
      swatch.style.backgroundColor = colors[index] || "transparent";
      swatch.dataset.color = colors[index] || "";
      swatch.hidden = !colors[index];
    });
    if (this.scene) {
      this.scene.light(leds);
    }
  }

  showBody(state) {
    const parts = [state.posture || "posture unknown"];
    if (state.awake !== null) {
      parts.push(state.awake ? "awake" : "resting");
    }
    parts.push(state.moving ? "moving" : "not moving");
    if (state.position) {
      const [x, y, theta] = state.position;
      parts.push("at x " + x.toFixed(2) + " m, y " + y.toFixed(2) + " m, "
                 + Math.round((theta * 180) / Math.PI) + "°");
    }
    element("posture").textContent = parts.join(" · ");
  }

  showTablet(tablet) {
    const figure = element("tablet");
    figure.hidden = !tablet;
    if (!tablet) {
      return;
    }
    const image = element("tablet-image");
    const page = element("tablet-page");
    const showPage = Boolean(tablet.page_file);
    const showImage = !showPage && Boolean(tablet.image_file);
    if (showPage && page.getAttribute("src") !== tablet.page_file) {
      page.setAttribute("src", tablet.page_file);
    }
    if (showImage && image.getAttribute("src") !== tablet.image_file) {
      image.setAttribute("src", tablet.image_file);
    }
    page.hidden = !showPage;
    image.hidden = !showImage;
    const shown = tablet.image || (tablet.webview ? tablet.url : "");
    element("tablet-caption").textContent = !shown ? "tablet: nothing shown"
      : showPage || showImage ? "tablet: " + shown
      : "tablet: " + shown + " (not a file of the project: not shown here)";
  }

  // what stays for a while: the sentence said, what was heard, the touch
  showMoments() {
    const state = this.state;
    if (!state) {
      return;
    }
    const time = now();
    const saying = state.speech.text && (state.speech.speaking || time - state.speech.at < SPEECH_STAYS);
    showText(element("speech"), state.speech.text, !saying);
    const hearing = state.heard.text && time - state.heard.at < HEARD_STAYS;
    showText(element("heard"), "heard: " + state.heard.text, !hearing);
    const touch = state.touched;
    const touched = touch.parts.length ? touch.parts
      : time - touch.at < TOUCH_STAYS ? touch.last : [];
    showText(element("touched"), touched.length ? touched.join(", ") : "–", false);
  }

  // -- drawing -----------------------------------------------------------------------------
  draw(time) {
    this.showMoments();
    if (this.scene) {
      this.scene.render(time);
      this.frames += 1;
    }
    requestAnimationFrame((next) => this.draw(next));
  }

  listenForTurnAndZoom(stage) {
    let press = null;
    stage.addEventListener("pointerdown", (event) => {
      press = {x: event.clientX, y: event.clientY, view: Object.assign({}, this.view)};
      stage.setPointerCapture(event.pointerId);
    });
    stage.addEventListener("pointermove", (event) => {
      if (!press) {
        return;
      }
      this.view.azimuth = press.view.azimuth - (event.clientX - press.x) * 0.01;
      this.view.elevation = Math.max(-1.2, Math.min(1.4,
        press.view.elevation + (event.clientY - press.y) * 0.01));
      this.scene && this.scene.setView(this.view);
    });
    const release = () => { press = null; };
    stage.addEventListener("pointerup", release);
    stage.addEventListener("pointercancel", release);
    stage.addEventListener("wheel", (event) => {
      event.preventDefault();
      this.view.zoom = Math.max(0.3, Math.min(4, this.view.zoom * Math.pow(1.15, -Math.sign(event.deltaY))));
      this.scene && this.scene.setView(this.view);
    }, {passive: false});
    stage.addEventListener("dblclick", () => {
      this.view = Object.assign({}, START);
      this.scene && this.scene.setView(this.view);
    });
  }
}

// NAO or Pepper in a three.js scene: one group per link, placed by its joint from its
// parent link, the joint's angle turning it; angles move smoothly from one reading to the
// next (they come 30 times a second)
class RobotScene {
  constructor(THREE, figure, canvas) {
    this.THREE = THREE;
    this.canvas = canvas;
    // smooth edges cost a software renderer half its frame rate: only on a graphics card
    this.renderer = new THREE.WebGLRenderer({canvas: canvas, antialias: !drawnBySoftware()});
    this.renderer.setPixelRatio(window.devicePixelRatio || 1);
    this.scene = new THREE.Scene();
    this.scene.background = new THREE.Color(0xc9d3de);
    this.camera = new THREE.PerspectiveCamera(35, 1, 0.01, 50);
    this.camera.up.set(0, 0, 1);
    this.scene.add(new THREE.HemisphereLight(0xffffff, 0x8d8d8d, 2.2));
    const sun = new THREE.DirectionalLight(0xffffff, 1.8);
    sun.position.set(2, 1.5, 3);
    this.scene.add(sun);

    this.base = new THREE.Group();
    this.scene.add(this.base);
    const links = {[figure.root]: this.base};
    this.movers = [];          // {name, mimic, motion, axis, from, to}
    for (const joint of figure.joints) {
      const frame = new THREE.Group();
      frame.position.fromArray(joint.xyz);
      frame.rotation.set(joint.rpy[0], joint.rpy[1], joint.rpy[2], "ZYX");
      const motion = new THREE.Group();
      frame.add(motion);
      links[joint.parent].add(frame);
      links[joint.child] = motion;
      if (joint.axis) {
        this.movers.push({name: joint.name, mimic: joint.mimic, motion: motion,
                          axis: new THREE.Vector3().fromArray(joint.axis).normalize(),
                          from: 0, to: 0});
      }
    }
    this.materials = {};
    for (const [name, rgba] of Object.entries(figure.colors)) {
      this.materials[name] = new THREE.MeshLambertMaterial({
        color: new THREE.Color(rgba[0], rgba[1], rgba[2]), transparent: rgba[3] < 1,
        opacity: rgba[3]});
    }
    for (const [link, shapes] of Object.entries(figure.shapes)) {
      for (const shape of shapes) {
        links[link].add(this.mesh(shape));
      }
    }
    this.links = links;
    this.lightMeshes = {};
    for (const [part, light] of Object.entries(figure.lights)) {
      if (light) {
        this.lightMeshes[part] = light.places.map((place) => {
          const material = new THREE.MeshBasicMaterial({color: 0x000000});
          const disc = new THREE.Mesh(new THREE.CircleGeometry(light.radius, 24), material);
          disc.position.fromArray(place);
          disc.position.x += 0.001;  // just in front of the shape it is set in
          disc.rotation.y = Math.PI / 2;  // facing forward (X)
          links[light.link].add(disc);
          return disc;
        });
      }
    }
    // the floor under the feet; the view frames the sphere holding the robot in every pose
    this.scene.updateMatrixWorld(true);
    const bounds = new THREE.Box3().setFromObject(this.base);
    this.center = new THREE.Vector3().fromArray(figure.reach.centre);
    this.radius = figure.reach.radius;
    const floor = new THREE.GridHelper(4, 20, 0x9aa4b0, 0xc5ccd4);
    floor.rotation.x = Math.PI / 2;
    floor.position.z = bounds.min.z;
    this.scene.add(floor);
    this.reading = {at: 0, interval: 0.04};
    this.view = START;
    this.fit();
    this.resizer = new ResizeObserver(() => this.fit());
    this.resizer.observe(canvas);
  }

  mesh(shape) {
    const THREE = this.THREE;
    const material = this.materials[shape.color] || this.materials.shell;
    let geometry;
    if (shape.kind === "box") {
      geometry = new THREE.BoxGeometry(shape.size[0], shape.size[1], shape.size[2]);
    } else if (shape.kind === "sphere") {
      geometry = new THREE.SphereGeometry(shape.radius, 24, 16);
    } else if (shape.kind === "cylinder") {
      geometry = new THREE.CylinderGeometry(shape.radius, shape.radius, shape.length, 24);
      geometry.rotateX(Math.PI / 2);  // three's cylinders stand on Y, the figure's on Z
    } else {  // a capsule from xyz to end
      const start = new THREE.Vector3().fromArray(shape.xyz);
      const along = new THREE.Vector3().fromArray(shape.end).sub(start);
      const length = along.length();
      geometry = new THREE.CapsuleGeometry(shape.radius, length, 6, 16);
      const mesh = new THREE.Mesh(geometry, material);
      mesh.position.copy(start).addScaledVector(along, 0.5);
      if (length > 0) {
        mesh.quaternion.setFromUnitVectors(new THREE.Vector3(0, 1, 0), along.normalize());
      }
      return mesh;
    }
    const mesh = new THREE.Mesh(geometry, material);
    mesh.position.fromArray(shape.xyz);
    mesh.rotation.set(shape.rpy[0], shape.rpy[1], shape.rpy[2], "ZYX");
    return mesh;
  }

  // new angles (and where the base is): the joints move there by the next reading
  aim(joints, position) {
    const time = performance.now() / 1000;
    const since = time - this.reading.at;
    this.reading = {at: time, interval: Math.min(0.2, Math.max(0.02, since))};
    for (const mover of this.movers) {
      const angle = mover.name in joints ? joints[mover.name]
        : mover.mimic && mover.mimic in joints ? joints[mover.mimic] : mover.to;
      mover.from = this.angle(mover, time);
      mover.to = angle;
    }
    if (position) {
      this.base.position.set(position[0], position[1], 0);
      this.base.rotation.set(0, 0, position[2]);
    }
  }

  angle(mover, time) {
    const share = Math.min(1, (time - this.reading.at) / this.reading.interval);
    return mover.from + (mover.to - mover.from) * share;
  }

  light(leds) {
    const colors = {eyes: leds.eyes, chest: [leds.chest]};
    for (const [part, discs] of Object.entries(this.lightMeshes)) {
      discs.forEach((disc, index) => disc.material.color.set(colors[part][index] || "#000000"));
    }
  }

  setView(view) {
    this.view = view;
    this.place();
  }

  fit() {
    const width = this.canvas.clientWidth || 1;
    const height = this.canvas.clientHeight || 1;
    this.renderer.setSize(width, height, false);
    this.camera.aspect = width / height;
    this.camera.updateProjectionMatrix();
    this.place();
  }

  // the camera looking at the robot from the view's direction, as far as the sphere of its
  // reach needs to fit the canvas's narrower side (zoom 1)
  place() {
    const view = this.view;
    const vertical = (this.camera.fov * Math.PI) / 360;
    const horizontal = Math.atan(Math.tan(vertical) * this.camera.aspect);
    const distance = this.radius / Math.sin(Math.min(vertical, horizontal)) / view.zoom;
    const target = this.center.clone().add(this.base.position);
    this.camera.position.set(
      target.x + distance * Math.cos(view.elevation) * Math.cos(view.azimuth),
      target.y + distance * Math.cos(view.elevation) * Math.sin(view.azimuth),
      target.z + distance * Math.sin(view.elevation));
    this.camera.lookAt(target);
  }

  render() {
    const time = performance.now() / 1000;
    for (const mover of this.movers) {
      mover.motion.quaternion.setFromAxisAngle(mover.axis, this.angle(mover, time));
    }
    this.place();
    this.renderer.render(this.scene, this.camera);
  }

  // where links are drawn now: {left, top, right, bottom} in page px around them (and all
  // they carry), as last rendered
  screenBox(links) {
    const THREE = this.THREE;
    const bounds = new THREE.Box3();
    links.forEach((link) => bounds.expandByObject(this.links[link]));
    const corners = [];
    for (const x of [bounds.min.x, bounds.max.x]) {
      for (const y of [bounds.min.y, bounds.max.y]) {
        for (const z of [bounds.min.z, bounds.max.z]) {
          corners.push(new THREE.Vector3(x, y, z));
        }
      }
    }
    return this.pageBox(corners);
  }

  // where the whole robot is drawn now: the box in page px round every vertex of its shapes
  drawnBox() {
    const points = [];
    this.base.traverse((mesh) => {
      const positions = mesh.isMesh ? mesh.geometry.attributes.position : null;
      for (let index = 0; positions && index < positions.count; index += 1) {
        points.push(new this.THREE.Vector3().fromBufferAttribute(positions, index)
          .applyMatrix4(mesh.matrixWorld));
      }
    });
    return this.pageBox(points);
  }

  // {left, top, right, bottom} in page px round points of the scene, as the camera sees them
  pageBox(points) {
    const canvas = this.canvas.getBoundingClientRect();
    const box = {left: Infinity, top: Infinity, right: -Infinity, bottom: -Infinity};
    for (const point of points) {
      const seen = point.clone().project(this.camera);
      const left = canvas.left + ((seen.x + 1) / 2) * canvas.width;
      const top = canvas.top + ((1 - seen.y) / 2) * canvas.height;
      box.left = Math.min(box.left, left);
      box.right = Math.max(box.right, left);
      box.top = Math.min(box.top, top);
      box.bottom = Math.max(box.bottom, top);
    }
    return box;
  }

  // where the LEDs of ``part`` (eyes, chest) are drawn now: [x, y] in page px each
  screenPoints(part) {
    const canvas = this.canvas.getBoundingClientRect();
    return (this.lightMeshes[part] || []).map((mesh) => {
      const point = mesh.getWorldPosition(new this.THREE.Vector3()).project(this.camera);
      return [canvas.left + ((point.x + 1) / 2) * canvas.width,
              canvas.top + ((1 - point.y) / 2) * canvas.height];
    });
  }

  dispose() {
    this.resizer.disconnect();
    this.renderer.dispose();
  }
}
