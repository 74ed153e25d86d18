"""Live view of ``behavior_runner``: a web page showing the loaded behavior's diagram with
its running boxes and current states highlighted, and the robot moving, speaking, its eyes
and tablet, live, with play, pause, resume, stop and go-to-label buttons (the runner's
parameter ``view_port``).

Served on 127.0.0.1 only, by :class:`~naoqi_qicore.ros.loopback_http.LoopbackHTTPServer`
(bounded connections and request time, 4xx to every bad request, foreign ``Host`` and
cross-origin POSTs refused), its requests listed in :data:`ROUTES`:

=========================  ==============================================================
``GET /``                  the page (``live_view_page/``: HTML, scripts, style sheet)
``GET /pages``             JSON: the behavior's name and its diagram pages, root first,
                           each with its owner box, the page holding it and its
                           timeline; the page holding each box and the page it owns
                           (:func:`page_listing`)
``GET /pages/<n>.svg``     page ``n`` of the diagram (drawn when first asked, then kept)
``GET /events``            server-sent events: the state as JSON, first the current one,
                           then each time the runner publishes ``behavior/state`` or
                           ``behavior/focus``
``GET /robot/figure``      JSON: the robot's kinematic tree, shapes and LEDs
                           (:func:`~naoqi_qicore.ros.robot_figure.robot_figure`), once the
                           robot is known
``GET /robot/events``      server-sent events: what a person near the robot notices
                           (:class:`~naoqi_qicore.ros.robot_watch.RobotWatch`: joint
                           angles at 30 Hz, speech, LEDs, tablet...), read from the
                           runner's session only while such a stream is open
``GET /tablet/<file>``     a file of the ``html`` folder of the behavior's project, which
                           the tablet shows (:mod:`~naoqi_qicore.ros.tablet_files`),
                           sandboxed
``POST /control/<name>``   ``play``, ``pause``, ``resume``, ``stop``, ``goto`` (body
                           ``{"label": ...}``): the runner's service methods; answers
                           ``{"success": ..., "message": ...}``
=========================  ==============================================================

Errors are answered ``{"error": ...}`` to a GET, ``{"success": false, "message": ...}``
to a POST.  The events carry no file path, traceback or robot address.
"""
import json
import re
import threading
import urllib.request
from urllib.parse import quote, unquote
from http import HTTPStatus
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Tuple

from naoqi_qicore.converter.graph import PageWriter, render_page
from naoqi_qicore.converter.states import StateSpec
from naoqi_qicore.core.timeline import DEFAULT_FPS
from naoqi_qicore.ros.focus import focus_details
from naoqi_qicore.ros.loopback_http import (EventStream, HttpError, LoopbackHTTPServer,
                                            RoutedHandler, Route)
from naoqi_qicore.ros.robot_figure import robot_figure
from naoqi_qicore.ros.robot_watch import RobotWatch
from naoqi_qicore.ros.tablet_files import app_file, project_file
from naoqi_qicore.xar.model import Behavior, Box

#: what the page is made of: URL path -> (file in ``live_view_page/``, content type); the
#: ``three`` library (WebGL) is installed there by ``npm ci`` when the package is built
PAGE_FILES = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/live_view.js": ("live_view.js", "text/javascript; charset=utf-8"),
    "/diagram.js": ("diagram.js", "text/javascript; charset=utf-8"),
    "/robot.js": ("robot.js", "text/javascript; charset=utf-8"),
    "/live_view.css": ("live_view.css", "text/css; charset=utf-8"),
    "/three/three.module.js": ("node_modules/three/build/three.module.js",
                               "text/javascript; charset=utf-8"),
    "/three/three.core.js": ("node_modules/three/build/three.core.js",
                             "text/javascript; charset=utf-8"),
}
PAGE_DIR = Path(__file__).resolve().parent / "live_view_page"
#: what to do when the page's ``three`` library is missing
THREE_MISSING = ("the live view's three library is not installed: install npm, then "
                 "reinstall the package (make setup, or colcon build)")
#: the controls of ``POST /control/<name>``
CONTROLS = ("play", "pause", "resume", "stop", "goto")
#: BehaviorState status codes -> names (the message's constants, in order)
STATUS_NAMES = ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")
#: every answer: nothing from elsewhere, no framing, no caching
SECURITY_HEADERS = (
    ("Content-Security-Policy", "default-src 'self'; script-src 'self'; "
     "style-src 'self' 'unsafe-inline'; img-src 'self' data:; object-src 'none'; "
     "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)
#: the answers of ``/tablet/``: the project's files, shown in the page's frame only, with no
#: script running and no origin of their own (sandboxed)
TABLET_HEADERS = (
    ("Content-Security-Policy", "sandbox; default-src 'self' data:; "
     "style-src 'self' 'unsafe-inline'; frame-ancestors 'self'"),
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "SAMEORIGIN"),
    ("Referrer-Policy", "no-referrer"),
    ("Cache-Control", "no-store"),
)

#: the focus part of the events before the runner published one
NO_FOCUS: Dict[str, Any] = {"focused_activity": "", "previous_activity": "", "start_reason": "",
                            "stop_reason": "", "changed_by": "", "change_call": "",
                            "focus_stack": [], "details": []}
#: the state before the runner published one (a BehaviorState's defaults: IDLE)
NO_STATE = SimpleNamespace(status=0, frame=0, fps=0.0, states=[], active_boxes=[],
                           last_error="", error_count=0, errors=[], warning_count=0,
                           warnings=[])
#: a control: its label argument ("" but for goto) -> the service response (success, message)
Control = Callable[[str], Any]


def view_url(port: int) -> str:
    """The address of the live view served on ``port``."""
    return "http://127.0.0.1:%d/" % port


def fetch_state(port: int, timeout: float = 10.0) -> Dict[str, Any]:
    """The current state of the live view on ``port``: the first event of its stream.
    ``OSError`` when it cannot be read."""
    with urllib.request.urlopen(view_url(port) + "events", timeout=timeout) as stream:
        for line in stream:
            if line.startswith(b"data: "):
                return json.loads(line[len(b"data: "):])
    raise OSError("the live view on port %d closed its event stream" % port)


def box_paths(behavior: Behavior) -> Iterator[Tuple[Box, str]]:
    """Every box of ``behavior`` with its path as the engine reports it: the box names
    joined by "/" from the root ("root/Say"); several boxes can share a path."""
    pending: List[Tuple[Box, str]] = [(behavior.root, behavior.root.name)]
    while pending:
        box, path = pending.pop()
        yield box, path
        children = [child for diagram in box.diagrams() for child in diagram.boxes]
        pending.extend((child, path + "/" + child.name) for child in reversed(children))


def objects_by_path(behavior: Behavior, names: Mapping[int, str]) -> Dict[str, List[str]]:
    """Box path -> the object names (``names``: id(box) -> object name, from
    ``assign_names``) of the boxes having that path."""
    objects: Dict[str, List[str]] = {}
    for box, path in box_paths(behavior):
        objects.setdefault(path, []).append(names[id(box)])
    return objects


def page_timeline(owner: Box, states: List[StateSpec]) -> Optional[Dict[str, Any]]:
    """What the timeline bar shows for the page of ``owner``: whether its frames play, its
    fps, its length in frames, its labels (at the frame of their state) and how many states
    it has; None for a flow diagram, which has no timeline to show."""
    timeline = owner.timeline
    if timeline is None or PageWriter.is_flow_diagram(owner):
        return None
    labels: Dict[str, int] = {}
    for state in states:
        for label in state.labels:
            labels.setdefault(label, state.begin)
    curves = timeline.actuator_list.curves if timeline.actuator_list is not None else []
    last_key = max((key.frame for curve in curves for key in curve.keys), default=0)
    length = (timeline.end_frame if timeline.end_frame is not None and timeline.end_frame >= 1
              else timeline.size or max(states[-1].end if states else 0, last_key))
    return {"plays": bool(timeline.enable),
            "fps": float(timeline.fps or DEFAULT_FPS) if timeline.enable else 0.0,
            "frame_count": int(length), "states": len(states),
            "labels": [{"label": label, "frame": frame} for label, frame
                       in sorted(labels.items(), key=lambda item: (item[1], item[0]))]}


def page_listing(writer: PageWriter, paths: Mapping[int, str]) -> Dict[str, Any]:
    """The pages of a behavior for the page's navigation: each page's name, the object
    name, box name and box path (``paths``: id(box) -> path) of its owner, the page holding
    that box (``parent``, -1 for the root page) and its timeline (:func:`page_timeline`);
    and for each box (object name) the page holding it and the page it owns (-1 when
    none)."""
    index = {page: number for number, page in enumerate(writer.owners)}
    holders = {id(child): box for box in writer.order for diagram in box.diagrams()
               for child in diagram.boxes}
    pages = []
    for page, owner in writer.owners.items():
        holder = holders.get(id(owner))
        pages.append({"name": page, "object": writer.names[id(owner)], "title": owner.name,
                      "path": paths[id(owner)],
                      "parent": index[writer.pages[id(holder)]] if holder is not None else -1,
                      "timeline": page_timeline(owner, writer.states.get(id(owner), []))})
    boxes = {writer.names[id(box)]: [index[writer.pages[id(holders[id(box)])]],
                                     index.get(writer.pages.get(id(box), ""), -1)]
             for box in writer.order if id(box) in holders}
    return {"pages": pages, "boxes": boxes}


class BehaviorDiagram:
    """The diagram of a loaded behavior: the object names of its boxes (those of the
    drawn pages), by path and by model box, its pages listed for the navigation, and each
    page drawn when first asked (then kept)."""

    def __init__(self, name: str, behavior: Behavior, version: int) -> None:
        self.name = name
        self.behavior = behavior
        #: how many behaviors the view showed before this one: the page reloads the
        #: diagram when it changes
        self.version = version
        self._writer = PageWriter(behavior)
        self._names = self._writer.names
        self.objects_by_path = objects_by_path(behavior, self._names)
        self.page_names = list(self._writer.owners)
        paths = {id(box): path for box, path in box_paths(behavior)}
        self.listing = dict(page_listing(self._writer, paths), behavior=name, diagram=version)
        self._lock = threading.Lock()
        #: page name -> its SVG, and a lock per page being drawn
        self._drawn: Dict[str, bytes] = {}
        self._drawing: Dict[str, threading.Lock] = {}

    def object_name(self, box: Box) -> Optional[str]:
        """The object name of a box of the model (None for a box of another model)."""
        return self._names.get(id(box))

    def page(self, number: int) -> bytes:
        """The SVG of page ``number`` (IndexError when there is none), drawn by Graphviz
        the first time it is asked (two pages are drawn at once, one page once)."""
        page = self.page_names[number]
        with self._lock:
            drawing = self._drawing.setdefault(page, threading.Lock())
        with drawing:
            if page not in self._drawn:
                self._drawn[page] = render_page(self._writer, page)
            return self._drawn[page]


def running_objects(player: Any, diagram: BehaviorDiagram
                    ) -> Tuple[List[str], List[Tuple[str, int, int]]]:
    """The object names of the boxes ``player`` (a BehaviorPlayer) runs now, and
    (owner object name, state index, frame) of the current state of each loaded timeline."""
    active: List[str] = []
    states: List[Tuple[str, int, int]] = []
    for box in player.boxes():
        name = diagram.object_name(box.model)
        if name is None:
            continue
        if box.active:
            active.append(name)
        content = box.content
        machine = content.machine if content is not None and content.loaded else None
        current = machine.current if machine is not None else None
        if current is not None:
            states.append((name, int(current), int(content.frame)))
    return active, states


def state_event(state: Any, diagram: Optional[BehaviorDiagram], player: Any,
                ran: Iterable[str] = ()) -> Dict[str, Any]:
    """The state part of an event: a BehaviorState message, with the object names of its
    boxes and the root timeline from ``player`` (a BehaviorPlayer, or None); ``ran``: the
    paths of the boxes that started since the run began."""
    objects = diagram.objects_by_path if diagram is not None else {}
    ran_boxes = sorted(ran)
    active, states = running_objects(player, diagram) if player is not None and \
        diagram is not None else ([], [])
    timeline: Dict[str, Any] = {"frame_count": 0, "fps": 0.0, "labels": []}
    if player is not None:
        labels = sorted(player.labels.items(), key=lambda item: (item[1], item[0]))
        timeline = {"frame_count": int(player.frame_count), "fps": float(player.fps),
                    "labels": [{"label": label, "frame": int(frame)} for label, frame in labels]}
    return {
        "status": (STATUS_NAMES[state.status] if state.status < len(STATUS_NAMES)
                   else str(state.status)),
        "frame": int(state.frame),
        "fps": float(state.fps),
        "labels": list(state.states),
        "active_boxes": list(state.active_boxes),
        "active_objects": active,
        "ran_boxes": ran_boxes,
        "ran_objects": sorted({name for path in ran_boxes for name in objects.get(path, [])}),
        "current_states": [{"owner": owner, "index": index, "frame": frame}
                           for owner, index, frame in states],
        "last_error": state.last_error,
        "error_count": int(state.error_count),
        "errors": [{"box_path": error.box_path, "objects": objects.get(error.box_path, []),
                    "where": error.where, "exception_type": error.exception_type,
                    "message": error.message} for error in state.errors],
        "warning_count": int(state.warning_count),
        "warnings": [{"box_path": warning.box_path, "where": warning.where,
                      "message": warning.message} for warning in state.warnings],
        "timeline": timeline,
    }


def focus_event(focus: Any) -> Dict[str, Any]:
    """The focus part of an event, from an ActivityFocus message (``details``: what the page
    shows beside the focused activity)."""
    return {"focused_activity": focus.focused_activity,
            "previous_activity": focus.previous_activity,
            "start_reason": focus.start_reason, "stop_reason": focus.stop_reason,
            "changed_by": focus.changed_by, "change_call": focus.change_call,
            "focus_stack": list(focus.focus_stack), "details": focus_details(focus)}


class LiveView:
    """The live view's HTTP server on ``127.0.0.1:port`` (0: a free port), serving until
    :meth:`close`; ``controls`` maps each of :data:`CONTROLS` to the runner's method.
    ``log`` takes a line per request, ``report_error`` an unexpected error with its
    traceback (default: standard error); ``limits`` are the server's bounds
    (``max_connections``, ``max_streams``, ``request_timeout``, see
    :class:`~naoqi_qicore.ros.loopback_http.LoopbackHTTPServer`).  ``OSError`` when the
    port cannot be had."""

    def __init__(self, port: int, controls: Mapping[str, Control],
                 log: Callable[[str], None] = lambda line: None,
                 report_error: Optional[Callable[[str], None]] = None,
                 **limits: Any) -> None:
        missing = [name for name in CONTROLS if name not in controls]
        if missing:
            raise ValueError("live view: no control for %s" % ", ".join(missing))
        self._controls = dict(controls)
        self._control_lock = threading.Lock()  # one control at a time, as the services
        self._lock = threading.Lock()
        self._diagram: Optional[BehaviorDiagram] = None
        self._loads = 0
        self._behavior = ""
        self._state: Dict[str, Any] = state_event(NO_STATE, None, None)
        #: paths of the boxes started since the run began, and the engine's status
        self._ran: Set[str] = set()
        self._engine_status = ""
        self._focus: Dict[str, Any] = dict(NO_FOCUS)
        #: the package id and folder of the behavior played (its tablet files)
        self._project: Tuple[str, str] = ("", "")
        #: the events of ``GET /events`` and ``GET /robot/events``
        self.events = EventStream()
        self.robot_events = EventStream()
        #: what a person near the robot notices, read while a page watches
        self.robot = RobotWatch(self._robot_changed, log)
        self._robot_changed(self.robot.snapshot())
        self.server = LoopbackHTTPServer(port, _Handler, "live view", log, report_error,
                                         **limits)
        self.server.view = self  # type: ignore[attr-defined]
        self.port = self.server.port
        self._push()
        self.server.start()

    @property
    def url(self) -> str:
        return view_url(self.port)

    # -- what the runner tells ------------------------------------------------------------
    def show_behavior(self, name: str, behavior: Behavior) -> None:
        """A behavior was loaded: its diagram replaces the previous one."""
        with self._lock:
            self._loads += 1
            self._diagram = BehaviorDiagram(name, behavior, self._loads)
            self._ran.clear()
            self._engine_status = ""
        self._push()

    def engine_event(self, kind: str, box_path: str, detail: str) -> None:
        """An event of the engine (in the order they come): a box started (``box_started``)
        is one that ran; a run starting (``status`` PLAYING but after PAUSED) forgets them."""
        with self._lock:
            if kind == "status":
                if detail == "PLAYING" and self._engine_status not in ("PLAYING", "PAUSED"):
                    self._ran.clear()
                self._engine_status = detail
            elif kind == "box_started":
                self._ran.add(box_path)

    def show_state(self, state: Any, player: Any) -> None:
        """The runner published ``state`` (BehaviorState) of ``player`` (or None)."""
        with self._lock:
            diagram = self._diagram
            ran = set(self._ran)
        part = state_event(state, diagram, player, ran)
        with self._lock:
            self._behavior = state.behavior
            self._state = part
            if player is not None:
                self._project = (player.package_uid, player.project_folder or "")
        self._push()

    def watch_robot(self, session: Any) -> None:
        """The runner connected to the robot: the page sees it through ``session``."""
        self.robot.bind(session)

    def forget_robot(self) -> None:
        """The runner lost the robot."""
        self.robot.forget()

    def _robot_changed(self, snapshot: Dict[str, Any]) -> None:
        tablet = snapshot.get("tablet")
        if tablet is not None:
            tablet = dict(tablet, image_file=self.tablet_path(tablet["image"]),
                          page_file=self.tablet_path(tablet["url"]) if tablet["webview"] else "")
        self.robot_events.push(json.dumps(dict(snapshot, tablet=tablet)).encode("utf-8"))

    def tablet_path(self, url: str) -> str:
        """Where the page finds the file of the behavior's project the robot's ``url``
        names (``/tablet/<file>``), "" for another URL."""
        with self._lock:
            package_uid, folder = self._project
        relative = app_file(url, package_uid) if url and folder else None
        return "/tablet/" + quote(relative) if relative else ""

    def tablet_file(self, relative: str) -> Tuple[bytes, str]:
        """The content and type of the file ``relative`` of the ``html`` folder of the
        behavior's project; ``LookupError`` when there is none."""
        with self._lock:
            folder = self._project[1]
        if not folder:
            raise LookupError("no behavior is playing")
        return project_file(folder, relative)

    def show_focus(self, focus: Any) -> None:
        """The runner published ``focus`` (ActivityFocus)."""
        with self._lock:
            self._focus = focus_event(focus)
        self._push()

    def _push(self) -> None:
        with self._lock:
            diagram = self._diagram
            event = dict(self._state, behavior=self._behavior, focus=self._focus,
                         diagram=diagram.version if diagram is not None else 0)
            self.events.push(json.dumps(event).encode("utf-8"))

    def close(self) -> None:
        """Stop serving (open event streams end) and reading the robot."""
        self.events.close()
        self.robot_events.close()
        self.server.close()
        self.robot.close()

    # -- what the handler asks ------------------------------------------------------------
    def diagram(self) -> Optional[BehaviorDiagram]:
        with self._lock:
            return self._diagram

    def control(self, name: str, label: str) -> Tuple[bool, str]:
        """Run control ``name`` (the runner's service method); (success, message)."""
        with self._control_lock:
            response = self._controls[name](label)
        return bool(response.success), str(response.message)


#: the requests the live view answers: (method, URL path, method of :class:`_Handler`
#: called with the path's groups); see the module doc
ROUTES = (
    Route("GET", "(%s)" % "|".join(re.escape(path) for path in PAGE_FILES), "page_file"),
    Route("GET", r"/pages", "page_list"),
    Route("GET", r"/pages/([0-9]{1,6})\.svg", "page"),
    Route("GET", r"/events", "state_events"),
    Route("GET", r"/robot/figure", "figure"),
    Route("GET", r"/robot/events", "robot_events"),
    Route("GET", r"/tablet/([^?#]{1,1024})", "tablet"),
    Route("POST", r"/control/([a-z]{1,16})", "control"),
)


class _Handler(RoutedHandler):
    """One request to the live view (``self.server.view`` is the :class:`LiveView`)."""

    server_version = "naoqi_qicore-live-view"
    routes = ROUTES
    answer_headers = SECURITY_HEADERS

    @property
    def view(self) -> LiveView:
        return self.server.view  # type: ignore[attr-defined]

    def error_value(self, message: str) -> Any:
        if self.command in ("GET", "HEAD"):
            return {"error": message}
        return {"success": False, "message": message}

    def page_file(self, path: str) -> None:
        file_name, kind = PAGE_FILES[path]
        try:
            body = (PAGE_DIR / file_name).read_bytes()
        except FileNotFoundError:
            raise HttpError(HTTPStatus.NOT_FOUND, THREE_MISSING if "three" in path
                            else "%s is missing" % file_name) from None
        self.answer(HTTPStatus.OK, body, kind)

    def _diagram(self) -> BehaviorDiagram:
        diagram = self.view.diagram()
        if diagram is None:
            raise HttpError(HTTPStatus.NOT_FOUND, "no behavior loaded")
        return diagram

    def page_list(self) -> None:
        self.answer_json(HTTPStatus.OK, self._diagram().listing)

    def page(self, number: str) -> None:
        diagram = self._diagram()
        try:
            svg = diagram.page(int(number))
        except IndexError:
            raise HttpError(HTTPStatus.NOT_FOUND, "no page %s" % number) from None
        except Exception as error:  # a renderer failure (no dot program): said to the page
            raise HttpError(HTTPStatus.INTERNAL_SERVER_ERROR,
                            "cannot draw %s: %s" % (diagram.name, error)) from None
        self.answer(HTTPStatus.OK, svg, "image/svg+xml")

    def state_events(self) -> None:
        self.serve_events(self.view.events, "state")

    def figure(self) -> None:
        robot = self.view.robot.snapshot()["robot"]
        if not robot:
            raise HttpError(HTTPStatus.NOT_FOUND, "no robot known yet")
        self.answer_json(HTTPStatus.OK, robot_figure(robot))

    def robot_events(self) -> None:
        with self.view.robot.watched():
            self.serve_events(self.view.robot_events, "robot")

    def tablet(self, relative: str) -> None:
        try:
            body, kind = self.view.tablet_file(unquote(relative))
        except LookupError as error:
            raise HttpError(HTTPStatus.NOT_FOUND, "no tablet file %s: %s"
                            % (relative[:200], error)) from None
        self.answer_headers = TABLET_HEADERS
        self.answer(HTTPStatus.OK, body, kind)

    def control(self, name: str) -> None:
        if name not in CONTROLS:
            raise HttpError(HTTPStatus.NOT_FOUND, "no control %s" % name)
        label = self._label() if name == "goto" else ""
        success, message = self.view.control(name, label)
        self.answer_json(HTTPStatus.OK, {"success": success, "message": message})

    def _label(self) -> str:
        """The label of a goto body ``{"label": "..."}``."""
        body = self.json_body()
        label = body.get("label") if isinstance(body, dict) else None
        if not isinstance(label, str) or not label:
            raise HttpError(HTTPStatus.BAD_REQUEST, 'goto needs {"label": "<label>"}')
        return label
