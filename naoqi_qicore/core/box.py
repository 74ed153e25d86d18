"""The running form of boxes, their diagrams and their content (states and timeline).

* :class:`BoxNode` is one box: its ports and parameter values, the object of its script,
  its load count, whether it is started.  Input stimulations run the box's
  ``onInput_<name>``; outputs route the signal through the enclosing diagram.
* :class:`DiagramNode` is one keyframe's flow diagram: its boxes and links, loaded and
  unloaded with a count (one diagram can belong to consecutive states).
* :class:`BoxContent` is what a box has inside: the diagrams of its behavior layers, the
  state machine between them, and its :class:`~naoqi_qicore.core.timeline.Timeline`
  when the timeline is enabled.

Semantics follow NAOqi (reference §3, §8.5): onStart runs the user method, loads the
content, forwards the signal inside and plays the timeline; onStop runs the user method,
forwards, then stops and unloads the content; a Stopped output ends the box (its content
is unloaded) before the signal goes on; onLoad reaches the boxes of the keyframes a
state change newly loads (never those that stay loaded); an input whose box is not
loaded is ignored; a failing user method is reported (a
:class:`~naoqi_qicore.core.events.BoxError` of the run) and stops its box without its
Stopped outputs firing; a box declaring robot resources takes them when it starts
(:mod:`~naoqi_qicore.core.resources`), and when they stay busy it does not run: its
``onResourceError`` runs, else its ``onStopped`` output fires, and the run gets a warning.
Once the behavior's guard is closed, no user method is called and nothing box code emits
goes anywhere.  A box being unloaded while the behavior stops runs its ``onUnload`` in a
thread of its own, the stop's own box code (its robot calls allowed for
:data:`UNLOAD_SECONDS` from when its thread began to run), and the unloading goes on to
the next box once it returned or after :data:`UNLOAD_TURN_SECONDS`; a box's ``onInput_onStop`` runs only when its onStop input
is stimulated.
"""
from __future__ import annotations

import functools
import logging
import sys
import time
from typing import Any, Dict, List, Optional, Set, Tuple, Union

from naoqi_qicore.converter.states import compute_states
from naoqi_qicore.core.events import (WHERE_LOG, WHERE_MOTION, WHERE_RESOURCES, BoxError,
                                      GotoError, RunWarning)
from naoqi_qicore.core.guard import BehaviorStopped
from naoqi_qicore.core.motion import CurveSet, MotionSegment
from naoqi_qicore.core.parameters import convert_value, initial_value
from naoqi_qicore.core.resources import LOCK, MODES, PAUSE_ON_DEMAND, STOP_ON_DEMAND
from naoqi_qicore.core.running_behavior import RunningBehavior
from naoqi_qicore.core.script import positional_arity
from naoqi_qicore.core.statemachine import StateMachine
from naoqi_qicore.core.timeline import Timeline
from naoqi_qicore.xar.model import Box, Diagram, InputNature, OutputNature, Port

Route = Tuple[int, int]  # (owner box id, port id); owner 0 = the diagram's owner
_NO_PAYLOAD = object()
#: how long the unloading of a stopping behavior waits for one box's ``onUnload`` before
#: unloading the next box (that ``onUnload`` goes on in its thread) (s)
UNLOAD_TURN_SECONDS = 0.05
#: how long a stopping behavior lets one box's ``onUnload`` run (its robot calls allowed),
#: from when its thread began to run (s)
UNLOAD_SECONDS = 1.0


class DiagramNode:
    """A flow diagram in a box: boxes, links, a load count."""

    def __init__(self, owner: "BoxNode", model: Diagram, label: str) -> None:
        self.owner = owner
        self.model = model
        self.label = label
        self.boxes: Dict[int, BoxNode] = {}
        self.load_count = 0

    @functools.cached_property
    def routes(self) -> Dict[Route, List[Route]]:
        """(owner, port) -> the (owner, port) its links lead to; made when the diagram first
        routes a signal (a behavior of thousands of boxes loads every diagram, and runs a
        few)."""
        routes: Dict[Route, List[Route]] = {}
        for link in self.model.links:
            routes.setdefault((link.outputowner, link.indexofoutput), []).append(
                (link.inputowner, link.indexofinput))
        return routes

    @property
    def loaded(self) -> bool:
        return self.load_count > 0

    def load(self) -> None:
        """Count one more user; the first one loads every box of the diagram."""
        self.load_count += 1
        if self.load_count == 1:
            for box in self.boxes.values():
                box.load()

    def unload(self) -> None:
        """Count one user less; the last one unloads every box (links first)."""
        if self.load_count == 0:
            return
        self.load_count -= 1
        if self.load_count == 0:
            for box in self.boxes.values():
                box.unload()

    def route(self, owner: int, port: int, payload: Any, wait: bool = False) -> None:
        """Send what (owner, port) emits to the destinations of its links.

        Inputs of boxes (unless ``wait``) and outputs of the owner run in threads of their
        own; parameters are set at once.
        """
        if not self.loaded:
            return
        for destination in self.routes.get((owner, port), ()):
            self._deliver(destination, payload, wait)

    def _deliver(self, destination: Route, payload: Any, wait: bool) -> None:
        owner_id, port_id = destination
        box = self.owner if owner_id == 0 else self.boxes.get(owner_id)
        if box is None:
            return
        kind, port = box.port_by_id(port_id)
        if kind == "parameter":
            box.set_parameter(port.name, payload)
        elif owner_id == 0 and kind == "output":
            # not in the emitting box's thread: ending the parent unloads the emitter,
            # whose onUnload may wait for the method that emitted to return
            box.player.run_task(lambda: box.fire_output(port, payload))
        elif owner_id != 0 and kind == "input":
            if wait:
                box.receive(port, payload)
            else:
                box.player.run_task(lambda: box.receive(port, payload))


class BoxContent:
    """What a box holds inside: keyframe diagrams, their states, its timeline."""

    def __init__(self, box: "BoxNode") -> None:
        self.box = box
        player = box.player
        timeline_model = box.model.timeline
        assert timeline_model is not None
        self.diagrams: Dict[Tuple[int, int], DiagramNode] = {}
        for layer_index, layer in enumerate(timeline_model.layers):
            for keyframe_index, keyframe in enumerate(layer.keyframes):
                self.diagrams[(layer_index, keyframe_index)] = DiagramNode(
                    box, keyframe.diagram, keyframe.name)
        self.states = compute_states(timeline_model) if self.diagrams else []
        self.state_names = ["%s_state_%d" % (box.name, state.index) for state in self.states]
        self.labels: Dict[str, int] = {}
        for state in self.states:
            for label in state.labels:
                self.labels.setdefault(label, state.begin)
        self._flags = {state.begin: state.index for state in self.states[1:]}
        self.machine: Optional[StateMachine[int]] = None
        if self.states:
            self.machine = StateMachine(self._change_state, queue=player.transitions,
                                        lock=player.lock)
            for state in self.states:
                self.machine.add_state(state.index)
            self.machine.set_initial_state(0)
            self.machine.set_final_state(len(self.states) - 1)
        self.timeline: Optional[Timeline] = None
        if timeline_model.enable:
            curves = timeline_model.actuator_list.curves if timeline_model.actuator_list else []
            self.timeline = Timeline(
                clock=player.clock, fps=timeline_model.fps,
                start_frame=timeline_model.start_frame, end_frame=timeline_model.end_frame,
                curves=CurveSet(curves), motion=player.motion, on_frame=self._on_frame,
                on_end=self._on_end, on_motion=self._on_motion, on_error=self._on_error,
                on_warning=self._on_warning, name="timeline " + box.path)
        self.loaded = False

    # -- queries ---------------------------------------------------------------------------
    def state_at(self, frame: int) -> int:
        """Index of the state showing ``frame`` (intervals [begin, end) ; the last one stays)."""
        index = 0
        for state in self.states:
            if state.begin <= frame:
                index = state.index
        return index

    @property
    def frame(self) -> int:
        if self.timeline is not None:
            return self.timeline.frame
        current = self.machine.current if self.machine is not None else None
        return self.states[current].begin if current is not None else 0

    def current_labels(self) -> List[str]:
        """Names of the keyframes loaded in the current state."""
        current = self.machine.current if self.machine is not None else None
        if current is None:
            return []
        return [self.diagrams[key].label for key in self.states[current].keyframes]

    def frame_of(self, target: Union[str, int]) -> int:
        """The frame of a label or frame number; ``GotoError`` when there is none."""
        if isinstance(target, str):
            if target in self.labels:
                return self.labels[target]
            text = target.strip()
            if not text.lstrip("-").isdigit():
                raise GotoError("%s has no keyframe named %r (labels: %s)" % (
                    self.box.path, target, ", ".join(sorted(self.labels)) or "none"))
            target = int(text)
        if isinstance(target, float) and target.is_integer():
            target = int(target)
        if not isinstance(target, int) or isinstance(target, bool) or target < 0:
            raise GotoError("%s: cannot go to frame %r" % (self.box.path, target))
        if self.timeline is not None and self.timeline.end_frame >= 1 \
                and target > self.timeline.end_frame:
            raise GotoError("%s: frame %d is after the last frame %d"
                            % (self.box.path, target, self.timeline.end_frame))
        return target

    # -- control ---------------------------------------------------------------------------
    def start(self) -> None:
        """Load the state showing the timeline's frame (no-op when loaded)."""
        with self.box.player.lock:
            if self.loaded:
                return
            self.loaded = True
            self.box.subscribe_memory()
            if self.machine is not None:
                self.machine.set_initial_state(self.state_at(self.frame_for_start()))
                self.machine.run()

    def frame_for_start(self) -> int:
        return self.timeline.frame if self.timeline is not None else 0

    def play(self) -> None:
        if self.timeline is not None and self.loaded:
            self.timeline.play()

    def pause(self) -> None:
        if self.timeline is not None:
            self.timeline.pause()

    def forward(self, port_id: int, payload: Any, wait: bool = False) -> None:
        """Send one of the box's inputs into the loaded diagrams."""
        for diagram in list(self.diagrams.values()):
            diagram.route(0, port_id, payload, wait)

    def goto(self, target: Union[str, int], play: Optional[bool]) -> int:
        """Go to a label or frame; ``play`` True plays, False pauses, None keeps playing or
        not.  Returns the frame reached."""
        frame = self.frame_of(target)
        with self.box.player.lock:
            if self.timeline is not None:
                self.timeline.goto(frame)
            if self.machine is not None and self.loaded:
                self.machine.go_to(self.state_at(frame))
        if play is True:
            if not self.loaded:
                self.start()
            self.play()
        elif play is False:
            self.pause()
        return frame

    def unload(self) -> None:
        """Stop the timeline and leave the current state (its diagrams unload)."""
        if self.timeline is not None:
            self.timeline.stop()
        with self.box.player.lock:
            if not self.loaded:
                return
            self.loaded = False
            if self.machine is not None:
                self.machine.stop_now()
            self.box.unsubscribe_memory()

    # -- callbacks -------------------------------------------------------------------------
    def _change_state(self, previous: Optional[int], new: Optional[int]) -> None:
        old_keys = self.states[previous].keyframes if previous is not None else ()
        new_keys = self.states[new].keyframes if new is not None else ()
        for key in new_keys:
            self.diagrams[key].load()
        for key in old_keys:
            self.diagrams[key].unload()
        if new is None:
            return
        self.box.player.emit("state_entered", self.box.path, self.state_names[new],
                             state=new, labels=list(self.states[new].labels))
        on_load = [port.id for port in self.box.model.inputs
                   if port.nature == InputNature.ON_LOAD]
        for key in new_keys:
            if key not in old_keys:
                for port_id in on_load:
                    self.diagrams[key].route(0, port_id, None)

    def _on_frame(self, frame: int) -> None:
        state = self._flags.get(frame)
        if state is not None and self.machine is not None:
            self.machine.go_to(state)
        self.box.player.emit("frame", self.box.path, str(frame), frame=frame)

    def _on_end(self) -> None:
        self.box.player.run_task(self.box.timeline_ended)

    def _on_motion(self, segment: MotionSegment) -> None:
        self.box.player.emit("motion", self.box.path, "segment %d" % segment.segment_id,
                             segment_id=segment.segment_id, names=list(segment.names))

    def _on_error(self, what: str, error: BaseException) -> None:
        self.box.report_error(WHERE_MOTION, "%s: %s" % (what, error))

    def _on_warning(self, message: str) -> None:
        self.box.report_warning(WHERE_MOTION, message)


class BoxNode:
    """One box of a running behavior."""

    def __init__(self, player: RunningBehavior, model: Box, name: str,
                 parent: Optional["BoxNode"], diagram: Optional[DiagramNode]) -> None:
        self.player = player
        self.model = model
        self.name = name
        self.parent = parent
        self.diagram = diagram
        self.path = model.name if parent is None else parent.path + "/" + model.name
        self.outputs: Dict[str, Port] = {port.name: port for port in model.outputs}
        self.values: Dict[str, Any] = {}
        for parameter in model.parameters:
            try:
                self.values[parameter.name] = initial_value(parameter)
            except ValueError as error:
                self.values[parameter.name] = parameter.value
                player.warn("%s: %s" % (self.path, error))
        self.content: Optional[BoxContent] = None
        timeline = model.timeline
        if timeline is not None and (timeline.layers or (timeline.enable and timeline.actuator_list
                                                         and timeline.actuator_list.curves)):
            self.content = BoxContent(self)
        self.instance: Any = None
        self.broken = False
        self.load_count = 0
        self.active = False
        self._generation = 0
        self._memory: List[Any] = []

    @functools.cached_property
    def logger(self) -> logging.Logger:
        """The box's logger (``naoqi_qicore.box.<object name>``), made when first used:
        what it logs at WARNING and above is also a warning of the run."""
        return BoxLogger(self)

    # what only a box that runs needs, made when first used (a behavior of thousands of
    # boxes loads them all, and runs a few)
    @functools.cached_property
    def inputs(self) -> Dict[str, Port]:
        return {port.name: port for port in self.model.inputs}

    @functools.cached_property
    def _ports(self) -> Dict[int, Tuple[str, Any]]:
        """Parameters, outputs and inputs by id (of two with one id, the last of these)."""
        ports: Dict[int, Tuple[str, Any]] = {}
        model = self.model
        for kind, items in (("parameter", model.parameters), ("output", model.outputs),
                            ("input", model.inputs)):
            for item in items:
                ports[item.id] = (kind, item)
        return ports

    @functools.cached_property
    def parameter_types(self) -> Dict[str, int]:
        return {p.name: p.content_type for p in self.model.parameters}

    @functools.cached_property
    def inherits(self) -> Set[str]:
        """The names of the parameters that take their parent's value."""
        return {p.name for p in self.model.parameters if p.inherits_from_parent}

    # -- structure -------------------------------------------------------------------------
    def port_by_id(self, port_id: int) -> Tuple[str, Any]:
        return self._ports.get(port_id, ("", None))

    def children(self) -> List["BoxNode"]:
        if self.content is None:
            return []
        return [box for diagram in self.content.diagrams.values() for box in diagram.boxes.values()]

    @property
    def loaded(self) -> bool:
        return self.load_count > 0

    # -- parameters ------------------------------------------------------------------------
    def get_parameter(self, name: str) -> Any:
        """The value of a parameter, from the nearest ancestor having one of that name when
        the parameter inherits from its parent."""
        if name not in self.values:
            raise KeyError("box %s has no parameter %r (parameters: %s)"
                           % (self.path, name, ", ".join(self.values) or "none"))
        if name in self.inherits:
            ancestor = self.parent
            while ancestor is not None:
                if name in ancestor.values:
                    return ancestor.get_parameter(name)
                ancestor = ancestor.parent
        return self.values[name]

    def set_parameter(self, name: str, value: Any) -> None:
        if name not in self.values:
            raise KeyError("box %s has no parameter %r" % (self.path, name))
        try:
            self.values[name] = convert_value(self.parameter_types[name], value)
        except ValueError:
            self.values[name] = value

    # -- user code -------------------------------------------------------------------------
    def call_user(self, method_name: str, payload: Any = _NO_PAYLOAD) -> bool:
        """Call the script's method if it has one (arity rule of §3.4.1); False if it failed
        or was stopped (or the behavior's guard is closed)."""
        instance = self.instance
        if instance is None:
            return not self.broken
        method = getattr(instance, method_name, None)
        if method is None:
            return True
        guard = self.player.guard
        if guard.closed:
            return False
        try:
            if payload is _NO_PAYLOAD or positional_arity(method) == 0:
                guard.run(self.path, method)
            else:
                guard.run(self.path, method, payload)
        except BehaviorStopped:
            return False
        except (Exception, SystemExit):
            if guard.closed:  # what the stop did to it: a socket closed under it...
                return False
            self.fail(method_name, sys.exc_info())
            return False
        return True

    def fail(self, method_name: str, exc_info: Any) -> None:
        """A user method raised: its ``onError`` hears it if it has one, else the failure is
        an error of the run and the box stops (without firing its Stopped outputs); a
        failing root ends the run."""
        error = exc_info[1]
        hook = getattr(self.instance, "onError", None)
        if hook is not None and method_name != "onError":
            self.logger.warning("%s: %s: %s", method_name, type(error).__name__, error)
            try:
                self.player.guard.run(self.path, hook, "%s:%s" % (method_name, error))
                return
            except BehaviorStopped:
                return
            except (Exception, SystemExit):
                exc_info = sys.exc_info()
        # the traceback starts in box code (the engine's frames calling it left out)
        trace = exc_info[2]
        while trace is not None and trace.tb_frame.f_globals.get("__name__") in _CALLERS:
            trace = trace.tb_next
        failure = BoxError(self.path, _where(method_name), str(exc_info[1]),
                           type(exc_info[1]).__name__,
                           self.player.guard.format_exception(exc_info[1], self.path, trace))
        self.player.record_error(failure, cause=exc_info[1])
        self.halt()
        if self.parent is None:
            self.player.root_failed(failure)

    def report_error(self, where: str, message: str) -> None:
        """An error of the run concerning this box that is not an exception of its code."""
        self.player.record_error(BoxError(self.path, where, message))

    def report_warning(self, where: str, message: str) -> None:
        """A warning of the run concerning this box."""
        self.player.record_warning(RunWarning(self.path, where, message))

    # -- life cycle ------------------------------------------------------------------------
    def load(self) -> None:
        """Count one more load; the first calls ``onLoad``."""
        self.load_count += 1
        if self.load_count != 1:
            return
        self.player.emit("box_loaded", self.path)
        if self.content is None:
            self.subscribe_memory()
        self.call_user("onLoad")

    def unload(self) -> None:
        """Count one load less; the last calls ``onUnload`` then unloads the content."""
        if self.load_count == 0:
            return
        self.load_count -= 1
        if self.load_count:
            return
        self._call_on_unload()
        self.halt()
        if self.content is None:
            self.unsubscribe_memory()
        self.player.emit("box_unloaded", self.path)

    def _call_on_unload(self) -> None:
        """The script's ``onUnload``: in the calling thread, or, while the behavior stops, in
        a thread of the stop's own box code (:data:`UNLOAD_SECONDS` to run) waited for
        :data:`UNLOAD_TURN_SECONDS` at most
        (one that waits on a mutex or on a slow robot does not keep the others' from
        running)."""
        if not self.player.stopping or getattr(self.instance, "onUnload", None) is None:
            self.call_user("onUnload")
            return
        unloading = self.player.guard.start_stop_code(lambda: self.call_user("onUnload"),
                                                      "onUnload " + self.path, UNLOAD_SECONDS)
        unloading.wait(time.monotonic() + UNLOAD_TURN_SECONDS)

    def halt(self) -> None:
        """End the box: it is no longer started, its content and resources are released."""
        with self.player.lock:
            self._generation += 1
            self.active = False
        if self.content is not None:
            self.content.unload()
        if self.model.resources:
            self.player.resources.release(self)

    # -- inputs ----------------------------------------------------------------------------
    def receive(self, port: Port, payload: Any) -> None:
        """A signal reached one of the box's inputs."""
        if not self.loaded or self.broken or self.player.stopping or self.player.guard.closed:
            return
        if port.nature == InputNature.ON_START:
            self._start(port, payload)
        elif port.nature == InputNature.ON_STOP:
            self._stop(port, payload)
        elif self.call_user("onInput_" + port.name, payload) and self.content is not None:
            self.content.forward(port.id, payload)

    def _start(self, port: Port, payload: Any) -> None:
        with self.player.lock:
            if not self.loaded or self.player.stopping:
                # unloaded while the signal waited for the lock (its keyframe left by a
                # state change holding it): a box no longer loaded does not start
                return
            self._generation += 1
            generation = self._generation
            was_active, self.active = self.active, True
        self.player.emit("box_started", self.path, port.name)
        if self.model.resources and not was_active and not self._acquire_resources():
            return
        if not self.call_user("onInput_" + port.name, payload):
            return
        if self.content is None:
            return
        with self.player.lock:
            if self._generation != generation or not self.loaded:
                return  # the box stopped while its method ran
            self.content.start()
        self.content.play()
        self.content.forward(port.id, payload)

    def _stop(self, port: Port, payload: Any) -> None:
        if not self.call_user("onInput_" + port.name, payload):
            return
        if self.content is not None and self.content.loaded:
            self.content.forward(port.id, payload, wait=True)
        self.halt()

    # -- outputs ---------------------------------------------------------------------------
    def fire_output(self, port: Port, payload: Any = None) -> None:
        """The box emits on one of its outputs."""
        if not self.loaded or self.player.stopping or self.player.guard.closed:
            return
        self.player.emit("output_fired", self.path, port.name)
        if port.nature == OutputNature.STOPPED:
            self.halt()
        if self.diagram is not None:
            self.diagram.route(self.model.id, port.id, payload)
        elif port.nature == OutputNature.STOPPED:
            self.player.root_stopped(port.name)

    def output(self, name: str, payload: Any = None) -> None:
        port = self.outputs.get(name)
        if port is None:
            raise KeyError("box %s has no output %r" % (self.path, name))
        self.fire_output(port, payload)

    def stimulate(self, name: str, payload: Any = None) -> None:
        """``stimulateIO``: an input of that name is received, else an output fires."""
        if name in self.inputs:
            self.receive(self.inputs[name], payload)
        elif name in self.outputs:
            self.fire_output(self.outputs[name], payload)
        else:
            self.logger.warning("stimulateIO: box %s has no input or output %r", self.path, name)

    def timeline_ended(self) -> None:
        """The box's timeline reached its end: its Stopped outputs fire."""
        stopped = [port for port in self.model.outputs if port.nature == OutputNature.STOPPED]
        for port in stopped:
            self.fire_output(port, None)
        if not stopped:
            self.halt()
            if self.parent is None:
                self.player.root_stopped("end of timeline")

    # -- resources -------------------------------------------------------------------------
    def _acquire_resources(self) -> bool:
        """Take the box's resources (waiting as their timeout says).  When they stay busy the
        box does not run: its ``onResourceError`` runs if it has one, else its ``onStopped``
        output fires if it has one (NAOqi's rule), and the run gets a warning saying so."""
        wanted = [(r.name, r.type if r.type in MODES else LOCK) for r in self.model.resources]
        timeout = max((float(r.timeout or 0) for r in self.model.resources), default=0.0)
        resources = self.player.resources
        if resources.acquire(self, wanted, timeout):
            return True
        names = [name for name, _ in wanted]
        holders = [getattr(holder, "path", "another behavior")
                   for holder in resources.holders_in_the_way(self, names)]
        if getattr(self.instance, "onResourceError", None) is not None:
            outcome = "its onResourceError method ran"
        elif "onStopped" in self.outputs:
            outcome = "its onStopped output fired"
        else:
            outcome = "no output fired"
        self.report_warning(WHERE_RESOURCES, "the robot resources %s stayed busy (held by %s): "
                            "the box did not run, %s" % (", ".join(names),
                                                         ", ".join(holders) or "nobody now",
                                                         outcome))
        with self.player.lock:
            self.active = False
        if getattr(self.instance, "onResourceError", None) is not None:
            self.call_user("onResourceError", None)
        else:
            self._fire_on_stopped()
        return False

    def _fire_on_stopped(self) -> None:
        """Fire the box's ``onStopped`` output if it has one (what NAOqi does for a box
        that loses or cannot get its resources and has no method of its own for it)."""
        port = self.outputs.get("onStopped")
        if port is not None:
            self.fire_output(port, None)

    def resource_requested(self, resource: str, mode: str) -> None:
        """Another box wants a resource this box holds "on demand"."""
        if mode == STOP_ON_DEMAND:
            if getattr(self.instance, "onResourceLost", None) is not None:
                self.call_user("onResourceLost", None)
                self.halt()
            else:
                self.halt()
                self._fire_on_stopped()
        elif mode == PAUSE_ON_DEMAND:
            if self.content is not None:
                self.content.pause()
            self.player.resources.release(self, [resource])
        else:
            self.call_user("onResource", resource)

    # -- ALMemory inputs -------------------------------------------------------------------
    def subscribe_memory(self) -> None:
        for port in self.model.inputs:
            if port.nature == InputNature.STM_VALUE and port.stm_value_name:
                handle = self.player.memory_subscribe(
                    port.stm_value_name,
                    lambda value, port=port: self.player.run_task(
                        lambda: self.receive(port, value)))
                if handle is not None:
                    self._memory.append(handle)

    def unsubscribe_memory(self) -> None:
        handles, self._memory = self._memory, []
        for handle in handles:
            self.player.memory_unsubscribe(handle)


class BoxLogger(logging.Logger):
    """A box's ``self.logger``: a child of ``naoqi_qicore.box`` (its records go to that
    logger's and the root's handlers) whose lines at WARNING and above are also warnings of
    the run (:data:`~naoqi_qicore.core.events.WHERE_LOG`), whatever the log levels: a box
    saying it could not do its job is part of what the user must know.  One per box of
    each behavior, out of logging's registry (two behaviors may have boxes of one name)."""

    def __init__(self, box: "BoxNode") -> None:
        super().__init__("naoqi_qicore.box." + box.name)
        self.parent = logging.getLogger("naoqi_qicore.box")
        self._box = box

    def isEnabledFor(self, level: int) -> bool:  # noqa: N802 (logging's name)
        return level >= logging.WARNING or self._logged(level)

    def _logged(self, level: int) -> bool:
        """Whether the logging configuration wants lines of ``level`` (this logger is not
        in logging's registry: its level cache would not be cleared, it has none)."""
        return not self.manager.disable >= level and level >= self.getEffectiveLevel()

    def handle(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            try:
                message = record.getMessage()
            except Exception as error:  # box code's own format error: logging says it too
                message = "%r %% %r (%s)" % (record.msg, record.args, error)
            if record.levelno > logging.WARNING:
                message = "%s: %s" % (record.levelname, message)
            self._box.report_warning(WHERE_LOG, message)
        if self._logged(record.levelno):
            super().handle(record)


#: modules whose frames call box methods (left out of a failing box's traceback)
_CALLERS = frozenset((__name__, "naoqi_qicore.core.guard"))


def _where(method_name: str) -> str:
    """``BoxError.where`` of a box method: its input's name, or the life-cycle method."""
    return method_name[len("onInput_"):] if method_name.startswith("onInput_") else method_name
