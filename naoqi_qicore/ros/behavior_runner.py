"""``behavior_runner`` node: run, play, stop, pause, resume, go to labels and load behaviors.

Action: ``behavior/run`` (RunBehavior): run a behavior to its end and learn how it ended
(see ``run_action``).
Services (relative names): ``behavior/play`` (Play), ``behavior/stop``,
``behavior/pause``, ``behavior/resume`` (std_srvs/Trigger), ``behavior/goto`` (GoTo),
``behavior/load`` (LoadBehavior), ``behavior/list`` (ListBehaviors), ``behavior/installed``
(ListInstalledBehaviors: the robot's installed behaviors, which a goal runs on the robot
by name, see ``installed_behaviors``).
Topics (latched): ``behavior/state`` (BehaviorState, on every change and at
``state_rate`` while playing; with the errors and warnings of the current run) and
``behavior/focus``
(ActivityFocus).
With ``view_port`` set, a web page on 127.0.0.1 shows the behavior's diagram with what
runs highlighted, live, with the controls (see ``live_view``).
With ``bag_file`` set, the runner records what it and naoqi_bridge publish into that MCAP
file until it shuts down (see ``bag_recorder``).
With ``autoplay`` the behavior plays once the robot is connected; with ``exit_after_run``
too, the runner then exits with the run's outcome (0: it succeeded), so that a launch or a
CI job ends with the run.
Requests are served one at a time, in the order they come (``spin.run_node``).

A run (:class:`~naoqi_qicore.ros.behavior_run.BehaviorRun`) lasts from a play (service or
goal) to its end: FINISHED, ERROR (which release the focus), or STOPPED by
``behavior/stop``, a cancelled or preempted goal, ``behavior/load`` or shutdown.

Playing takes the robot's focus with ALAutonomousLife.switchFocus (stacking the current
activity when asked); stopping, or the behavior finishing, releases it with stopFocus,
which gives the focus back to the stacked activity.  Box scripts use the runner's own
qi session; motion goes through naoqi_bridge when one is up (see ``motion_sink``).
With an empty ``robot_url`` and ``nao_ip`` the runner starts a simulated robot in-process.
"""
import functools
import os
import queue
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, List, Optional, Tuple, Union

from rcl_interfaces.msg import FloatingPointRange, IntegerRange
from rclpy.node import Node
from std_srvs.srv import Trigger

from naoqi_qicore.converter.loader import LoadedBehavior
from naoqi_qicore.core.events import WHERE_LOG, BoxError, GotoError
from naoqi_qicore.core.motion import ALMotionSink
from naoqi_qicore.core.player import BehaviorPlayer
from naoqi_qicore.msg import ActivityFocus, BehaviorInfo, BehaviorState
from naoqi_qicore.robot.naoqi_compat import box_environment
from naoqi_qicore.robot.robot_apps import install_on_robot
from naoqi_qicore.robot.session import (SERVICE_TIMEOUT, ConnectionState, RobotAddress,
                                        RobotSession)
from naoqi_qicore.ros import diagnostics
from naoqi_qicore.ros.behavior_cache import behavior_name, default_cache_dir, load_behavior
from naoqi_qicore.ros.node_parameters import NodeParameter, NodeProgram, declare_parameters
from naoqi_qicore.ros.path_roots import (default_behavior_roots, is_under, outside_message,
                                         resolve_roots)
from naoqi_qicore.ros.behavior_run import (WHERE_ROBOT_CONNECTION, BehaviorRun, error_message,
                                           warning_message)
from naoqi_qicore.ros.focus import STOP_AND_STACK_CURRENT, STOP_CURRENT, FocusTracker, LifeObserver
from naoqi_qicore.ros.installed_behaviors import InstalledBehaviors, RobotBehaviorRun, runs_here
from naoqi_qicore.ros.live_view import LiveView
from naoqi_qicore.ros.motion_sink import MOTION_OUTPUTS, BridgeMotionSink
from naoqi_qicore.ros.qos import LATCHED
from naoqi_qicore.ros.robot_parameters import (CONNECTION_PARAMETERS, ROBOT_SERVICES,
                                               declare_robot_parameters, robot_address,
                                               robot_parameters_given)
from naoqi_qicore.ros.run_action import RUN_CLOSE_TIMEOUT, RunActionServer, result_message
from naoqi_qicore.ros.run_client import result_lines
from naoqi_qicore.ros.sim_scenario import ScenarioFeed, scenario_service
from naoqi_qicore.ros.spin import NodeSetupError, run_node
from naoqi_qicore.srv import GoTo, ListBehaviors, ListInstalledBehaviors, LoadBehavior, Play

if TYPE_CHECKING:
    from naoqi_qicore.ros.bag_recorder import BagRecorder

#: longest wait for ALAutonomousLife.switchFocus to answer (s)
FOCUS_TIMEOUT = 30.0
#: how long a live view's control waits for a runner that is starting (s)
SERVING_TIMEOUT = 10.0
STATUS_CODES = {name: getattr(BehaviorState, name) for name in
                ("IDLE", "LOADED", "PLAYING", "PAUSED", "STOPPED", "FINISHED", "ERROR")}
#: queued by a service that moved the frame: publish behavior/state even if nothing else
#: changed (frames otherwise go out at state_rate)
FRAME_MOVED = "frame moved"
#: queued by any other service: publish behavior/state if it changed
SERVED = "served"
#: queued when the focus changed: publish behavior/focus (once for the changes that came
#: together: a switchFocus answer, its activityTransition and its state event)
FOCUS_CHANGED = "focus changed"
#: engine events that change what behavior/state shows (frames go out at state_rate)
STATE_EVENTS = ("status", "state_entered", "box_loaded", "box_unloaded", "box_started",
                "output_fired", "error", "warning")
#: errors and warnings of the run in behavior/state (the newest)
STATE_ERRORS = 20
#: exit statuses with exit_after_run: the autoplayed run succeeded, or it did not
EXIT_RUN_SUCCEEDED = 0
EXIT_RUN_FAILED = 1
NODE_NAME = "behavior_runner"
RUNNER_PARAMETERS = (
    NodeParameter("behavior", "", "behavior to load at start: .xar, .pml, .crg, .pkg or a "
                  "converted folder (then use behavior/load or a behavior/run goal)"),
    NodeParameter("autoplay", False, "play the behavior as soon as the robot is connected"),
    NodeParameter("exit_after_run", False, "with autoplay: exit once the autoplayed run has "
                  "ended, with status %d when it succeeded (the behavior finished with no "
                  "error), %d otherwise (errors, stopped, or the robot not connected within "
                  "robot_start_timeout): a launch, or a CI job, ends with the run"
                  % (EXIT_RUN_SUCCEEDED, EXIT_RUN_FAILED)),
    NodeParameter("activity_name", "", "activity name given to ALAutonomousLife.switchFocus "
                  "(default naoqi_qicore/<behavior name>)"),
    NodeParameter("take_focus", True, "play takes the robot's focus (switchFocus) and stop "
                  "releases it (stopFocus); false leaves ALAutonomousLife alone"),
    NodeParameter("motion_output", "auto", "where motion goes: auto (naoqi_bridge when one "
                  "is connected, else ALMotion directly), bridge or direct",
                  constraints=dict(additional_constraints="one of "
                                   + ", ".join(MOTION_OUTPUTS))),
    NodeParameter("state_rate", 2.0, "behavior/state rate while playing (Hz)",
                  constraints=dict(floating_point_range=[
                      FloatingPointRange(from_value=0.1, to_value=50.0)])),
    NodeParameter("view_port", 0, "port of the live view, a web page on 127.0.0.1 showing "
                  "the behavior's diagram with its running boxes, live, with play, pause, "
                  "resume, stop and go-to buttons (0: no live view)",
                  constraints=dict(integer_range=[
                      IntegerRange(from_value=0, to_value=65535, step=1)])),
    NodeParameter("bag_file", "", "MCAP file to record the run into (joint states, robot "
                  "description, transforms, behavior state and focus, speech, motion segments), "
                  "from start to shutdown; never an existing file"),
    NodeParameter("allow_eval", False, "the simulated robot the runner starts when no robot "
                  "is given lets ALPythonBridge evaluate the code clients send (any local "
                  "process could then run code with the runner's rights); only for behaviors "
                  "that need it"),
)
#: read back as in effect: the folder used
CACHE_DIR = NodeParameter("cache_dir", "", "folder of converted behaviors (default "
                          "~/.cache/naoqi_qicore/behaviors); reads back the folder in use")
#: read back as in effect: the resolved folders
BEHAVIOR_ROOTS = NodeParameter(
    "behavior_roots", [""], "folders behavior/load and behavior/run goals may load "
    "behaviors from, other paths are refused (default: the folder the node was started in, "
    "unless it is / or writable by other users, the package's installed examples, the "
    "folder of the behavior parameter and cache_dir); reads back the folders in effect")
#: what behavior_runner --help says
PROGRAM = NodeProgram("behavior_runner", NODE_NAME, __doc__,
                      CONNECTION_PARAMETERS + RUNNER_PARAMETERS + (CACHE_DIR, BEHAVIOR_ROOTS))


class _Loaded:
    """The behavior the runner holds: where it came from and its engine."""

    def __init__(self, name: str, path: str, behavior: LoadedBehavior) -> None:
        self.name = name
        self.path = path
        self.behavior = behavior
        self.player: Optional[BehaviorPlayer] = None
        #: whether the Python packages its box code lacks were told (once per load)
        self.dependencies_told = False


class BehaviorRunner(Node):
    """Plays one loaded behavior on a robot and serves its controls over ROS 2."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NODE_NAME, **kwargs)
        self._cache_dir, self._behavior_roots = self._declare_parameters()
        if self.get_parameter("exit_after_run").value and not (
                self.get_parameter("autoplay").value and self.get_parameter("behavior").value):
            raise NodeSetupError("exit_after_run goes with autoplay and a behavior: the "
                                 "program ends with the run autoplay starts")
        self._lock = threading.RLock()
        self._focus_lock = threading.Lock()
        #: held while behavior/focus is built and published: by one thread at a time, in order
        self._focus_publish_lock = threading.Lock()
        # behavior/run goals start one at a time, each preempting the run before it
        self._start_lock = threading.Lock()
        self._loaded: Optional[_Loaded] = None
        #: the current or last run
        self._run: Optional[BehaviorRun] = None
        #: a simulated robot's scenario (NaoqiSimScenario), told what the runs do
        self._scenario: Any = None
        self._scenario_feed: Optional[ScenarioFeed] = None
        # status and error shown while there is no engine: connecting (IDLE) or lost (ERROR)
        self._robot_status: Tuple[int, str] = (BehaviorState.IDLE, "")
        self._has_focus = False
        self._autoplayed = False
        #: the program's exit status once it should end (exit_after_run), read by run_node
        self.exit_status: Optional[int] = None
        self._closed = False
        self._last_state: Optional[tuple] = None
        self._life: Any = None
        self._sim: Any = None
        self._view: Optional[LiveView] = None
        self._recorder: Optional["BagRecorder"] = None

        self._state_pub = self.create_publisher(BehaviorState, "behavior/state", LATCHED)
        self._focus_pub = self.create_publisher(ActivityFocus, "behavior/focus", LATCHED)
        if self.get_parameter("bag_file").value:
            # imported when recording: the MCAP writer is most of its start-up time
            from naoqi_qicore.ros.bag_recorder import BagRecorder
            try:
                self._recorder = BagRecorder(self, self.get_parameter("bag_file").value)
            except ValueError as error:
                raise NodeSetupError("bag_file: %s" % error) from None
        self._focus = FocusTracker(self.get_fully_qualified_name())
        self._life_observer = LifeObserver(self._focus, lambda state: None, self._focus_changed)

        self._events: "queue.Queue[Any]" = queue.Queue()
        self._event_thread = threading.Thread(target=self._handle_engine_events, daemon=True,
                                              name="behavior_runner events")
        self._event_thread.start()
        #: set once the runner serves: the live view's controls wait for it
        self._serving = threading.Event()
        # the view takes its port before a simulated robot started here takes any free one
        self._view = self._start_view(self.get_parameter("view_port").value)
        address = self._address()
        # a simulated robot started here has registered all its services already
        self._robot = RobotSession(address, required_services=ROBOT_SERVICES,
                                   service_timeout=0.0 if self._sim is not None
                                   else SERVICE_TIMEOUT,
                                   start_timeout=self.get_parameter("robot_start_timeout").value,
                                   warn=self.get_logger().warning, inform=self.get_logger().info)
        self._diagnostics = diagnostics.Diagnostics(self, self._diagnostic_statuses)
        try:
            self._motion = BridgeMotionSink(self, ALMotionSink(self._robot.session),
                                            self.get_parameter("motion_output").value)
        except ValueError as error:
            self.close()
            raise NodeSetupError(str(error)) from None
        rate = self.get_parameter("state_rate").value
        self._installed = InstalledBehaviors(self._robot, 1.0 / rate, self.get_logger().info,
                                             lambda: self.get_clock().now().to_msg())
        services = [
            (Play, "behavior/play", self._play),
            (Trigger, "behavior/stop", self._stop),
            (Trigger, "behavior/pause", self._pause),
            (Trigger, "behavior/resume", self._resume),
            (GoTo, "behavior/goto", self._goto),
            (LoadBehavior, "behavior/load", self._load),
            (ListBehaviors, "behavior/list", self._list),
            (ListInstalledBehaviors, "behavior/installed", self._installed.serve),
        ]
        for service_type, name, handler in services:
            self.create_service(service_type, name, handler)
        self.create_timer(1.0 / rate, self._publish_state_while_playing)
        self._action = RunActionServer(self, self)

        # behavior/focus goes out once the robot's focus is known (on connection)
        self._publish_state(force=True)
        behavior = self.get_parameter("behavior").value
        if behavior:
            try:
                self._replace_behavior(behavior)
            except ValueError as error:
                self.close()
                raise NodeSetupError(str(error)) from None
        self._robot.add_connected_callback(self._on_connected)
        self._robot.add_state_callback(self._on_connection_state)
        self._robot.start()
        self._serving.set()
        if self._exits_after_run():
            threading.Thread(target=self._exit_unless_connected, daemon=True,
                             name="behavior_runner autoplay").start()

    # -- set-up ----------------------------------------------------------------------------
    def _declare_parameters(self) -> Tuple[Path, List[Path]]:
        """Declare the parameters; the cache folder and the behavior roots in effect (which
        the parameters ``cache_dir`` and ``behavior_roots`` read back)."""
        declare_robot_parameters(self)
        declare_parameters(self, RUNNER_PARAMETERS)
        cache_dir = Path(CACHE_DIR.declare_in_effect(
            self, lambda given: str(Path(given or default_cache_dir()).expanduser().resolve())))

        def behavior_roots(given: List[str]) -> List[str]:
            if any(given):
                roots = resolve_roots(given)
            else:
                roots, note = default_behavior_roots(self.get_parameter("behavior").value,
                                                     cache_dir)
                if note:
                    self.get_logger().info("behavior_roots: " + note)
            return [str(root) for root in roots]

        roots = [Path(root) for root in BEHAVIOR_ROOTS.declare_in_effect(self, behavior_roots)]
        self.get_logger().info("peers may load behaviors from %s (parameter behavior_roots)"
                               % ", ".join(str(root) for root in roots))
        return cache_dir, roots

    def _address(self) -> RobotAddress:
        """The robot's address; an in-process simulated robot when none is given."""
        try:
            if robot_parameters_given(self):
                return robot_address(self)
        except ValueError as error:
            raise NodeSetupError(str(error)) from None
        from naoqi_qicore.robot.sim import SimulatedRobot
        self._sim = SimulatedRobot(robot="nao", listen="tcp://127.0.0.1:0",
                                   allow_eval=self.get_parameter("allow_eval").value)
        self._sim.start()
        self.get_logger().info("no robot given: simulated robot at %s" % self._sim.url)
        return RobotAddress(self._sim.url)

    def _start_view(self, port: int) -> Optional[LiveView]:
        """The live view on ``port`` (None when 0), its controls the service methods."""
        if not port:
            return None
        controls = {
            "play": lambda label: self._control(self._play, Play.Request(), Play.Response()),
            "pause": lambda label: self._control(self._pause, Trigger.Request(),
                                                 Trigger.Response()),
            "resume": lambda label: self._control(self._resume, Trigger.Request(),
                                                  Trigger.Response()),
            "stop": lambda label: self._control(self._stop, Trigger.Request(),
                                                Trigger.Response()),
            "goto": lambda label: self._control(self._goto, GoTo.Request(label=label),
                                                GoTo.Response()),
        }
        try:
            view = LiveView(port, controls, self.get_logger().debug)
        except OSError as error:
            self.close()
            raise NodeSetupError("view_port %d: cannot serve the live view on 127.0.0.1: %s"
                                 % (port, error.strerror or error)) from None
        self.get_logger().info("live view at %s" % view.url)
        return view

    def _control(self, service: Callable[[Any, Any], Any], request: Any, response: Any) -> Any:
        """A live view's control: the service's answer once the runner serves."""
        if not self._serving.wait(SERVING_TIMEOUT):
            response.success = False
            response.message = "the runner is still starting"
            return response
        return service(request, response)

    def close(self) -> None:
        """Stop the behavior, disconnect, stop the simulated robot if the runner started it."""
        run = self._run
        if run is not None:
            self.stop_run(run, "the runner shut down")
        self._closed = True
        diagnostics_ = getattr(self, "_diagnostics", None)
        if diagnostics_ is not None:
            diagnostics_.close()
        action = getattr(self, "_action", None)
        if action is not None:
            action.close()
        with self._lock:
            loaded = self._loaded
            if loaded is not None and loaded.player is not None:
                self._unload_player(loaded)
        self._events.put(None)
        self._event_thread.join(5)
        if self._scenario_feed is not None:
            self._scenario_feed.close()
        if self._view is not None:
            self._view.close()
        robot = getattr(self, "_robot", None)  # none when the live view's port was refused
        if robot is not None:
            robot.close()
        if self._sim is not None:
            self._sim.stop()
        if self._recorder is not None:
            self._recorder.close()

    # -- robot connection ------------------------------------------------------------------
    def _on_connected(self, session: Any) -> None:
        self._life = self._life_observer.bind(session)
        self._scenario = scenario_service(session)
        if self._view is not None:
            self._view.watch_robot(session)
        with self._lock:
            self._robot_status = (BehaviorState.IDLE, "")
            loaded = self._loaded
            if loaded is not None and loaded.player is None:
                try:
                    self._start_player(loaded)
                except Exception as error:  # a box failing to load: reported, runner goes on
                    self._robot_status = (BehaviorState.ERROR, "loading %s: %s"
                                          % (loaded.name, error))
                    self.get_logger().error(self._robot_status[1])
        if self.get_parameter("autoplay").value and loaded is not None and not self._autoplayed:
            self._autoplayed = True  # once: a reconnection does not replay the behavior
            outcome = self._play_loaded(stack=False)
            if outcome:
                self.get_logger().error("autoplay: " + outcome)
                if self._exits_after_run():
                    self.exit_status = EXIT_RUN_FAILED
            elif self._exits_after_run():
                threading.Thread(target=self._exit_when_run_ends, args=(self._run,),
                                 daemon=True, name="behavior_runner autoplay").start()

    # -- exit_after_run --------------------------------------------------------------------
    def _exits_after_run(self) -> bool:
        """exit_after_run with autoplay: the program ends with the autoplayed run."""
        return bool(self.get_parameter("autoplay").value
                    and self.get_parameter("exit_after_run").value)

    def _exit_unless_connected(self) -> None:
        """The program ends when the robot is not connected within robot_start_timeout, or
        fails otherwise than a robot that is starting (nothing can be autoplayed)."""
        if not self._robot.wait_started() and not self._closed and not self._autoplayed:
            self.get_logger().error("autoplay: robot %s not connected: %s"
                                    % (self._robot.url, self._robot.message))
            self.exit_status = EXIT_RUN_FAILED

    def _exit_when_run_ends(self, run: BehaviorRun) -> None:
        """Once the autoplayed ``run`` has ended (its box code too), say how and end the
        program with its status."""
        run.wait()
        if run.player is not None:
            run.player.wait_run_closed(RUN_CLOSE_TIMEOUT)
        log = self.get_logger().info if run.succeeded else self.get_logger().error
        for line in result_lines(result_message(run)):
            log("autoplay: " + line)
        self.exit_status = EXIT_RUN_SUCCEEDED if run.succeeded else EXIT_RUN_FAILED

    def _on_connection_state(self, state: ConnectionState, message: str) -> None:
        if self._closed:
            return
        if state == ConnectionState.CONNECTED:
            self.get_logger().info("connected to %s" % self._robot.url)
            self._publish_state(force=True)
            return
        self._life = None
        if self._view is not None:
            self._view.forget_robot()
        with self._lock:
            if state == ConnectionState.DISCONNECTED:
                self._robot_status = (BehaviorState.ERROR, message)
            else:
                self._robot_status = (self._robot_status[0],
                                      "connecting to %s: %s" % (self._robot.url, message))
            self._has_focus = False
            loaded = self._loaded
            if state == ConnectionState.DISCONNECTED:
                self._motion.forget(message)
            lost: Optional[BehaviorRun] = None
            if loaded is not None and loaded.player is not None:
                self.get_logger().error("%s: stopping %s" % (message, loaded.name))
                self._unload_player(loaded)
                run = self._run
                if run is not None and not run.ended:
                    run.runner_errors.append(BoxError("root", WHERE_ROBOT_CONNECTION, message))
                    lost = run
        if lost is not None:
            self._end_run(lost, BehaviorState.ERROR, "robot connection lost: " + message)
        self._publish_state(force=True)

    # -- engine ----------------------------------------------------------------------------
    def _start_player(self, loaded: _Loaded) -> None:
        """Install ``loaded`` in the robot's files, then create and load its engine on the
        connected robot (lock held)."""
        installed, files, warnings = install_on_robot(self._robot.session, self._robot.url,
                                                      loaded.behavior)
        for warning in warnings:
            self.get_logger().warning(warning)
        player = BehaviorPlayer(installed.loaded, self._robot.session, motion=self._motion,
                                listener=self._on_engine_event,
                                environment=functools.partial(box_environment, files=files),
                                await_services=self._robot.wait_for_services)
        try:
            player.load()
        finally:
            self._tell_missing_dependencies(loaded, player)
        loaded.player = player

    def _tell_missing_dependencies(self, loaded: _Loaded, player: BehaviorPlayer) -> None:
        """One warning naming the Python packages the box code of ``loaded`` imports and
        this machine lacks, with the pip command (once per load of a behavior)."""
        if loaded.dependencies_told:
            return
        loaded.dependencies_told = True
        try:
            warning = player.missing_dependencies().warning()
        except Exception as error:  # telling is a courtesy: never the reason a load fails
            self.get_logger().debug("cannot tell missing dependencies: %s" % error)
            return
        if warning:
            self.get_logger().warning("%s: %s" % (loaded.name, warning))

    def _unload_player(self, loaded: _Loaded) -> None:
        """Stop and drop the engine of ``loaded`` (lock held)."""
        player, loaded.player = loaded.player, None
        try:
            if player.status in ("PLAYING", "PAUSED"):
                player.stop()
            player.unload()
        except Exception as error:  # a failing box must not keep the runner from going on
            self.get_logger().error("unloading %s: %s" % (loaded.name, error))

    def _on_engine_event(self, event: Any) -> None:
        """Engine listener: queue the event (engine threads must never wait on the runner)."""
        if event.kind in STATE_EVENTS:
            self._events.put(event)

    def _handle_engine_events(self) -> None:
        """Thread publishing what the engine reports, what the services did and the focus:
        one state and one focus for the events that came together (a play starts many boxes
        at once), built away from the threads that serve requests and run the boxes' first
        calls."""
        while True:
            events = [self._events.get()]
            while not self._events.empty():
                events.append(self._events.get())
            for event in events:
                if event is None:
                    return
                if event in (FRAME_MOVED, SERVED, FOCUS_CHANGED):
                    continue
                self._tell_scenario(event)
                if self._view is not None:
                    self._view.engine_event(event.kind, event.box_path, event.detail)
                if event.kind == "error":
                    error = event.data.get("error")
                    self.get_logger().error(event.detail + ("\n" + error.traceback
                                                            if error and error.traceback else ""))
                elif event.kind == "warning" and event.data["warning"].where != WHERE_LOG:
                    self.get_logger().warning(event.detail)  # box code's lines are logged
                if event.kind == "status" and event.detail in ("FINISHED", "ERROR"):
                    self._run_ended_by_itself()
            # the focus goes out first (_publish_state sees to it): it is taken before a play
            # starts and released before a run's end is published
            self._publish_state(force=FRAME_MOVED in events)

    def _tell_scenario(self, event: Any) -> None:
        """Tell the simulated robot's scenario what the current run does (events thread)."""
        feed, run = self._scenario_feed, self._run
        root = run.player.root if run is not None and run.player is not None else None
        if feed is not None and root is not None:
            feed.engine_event(event, root.path)

    def _feed_scenario(self) -> None:
        """A new run: the simulated robot's scenario with expectations is told about it
        (lock held)."""
        if self._scenario_feed is not None:
            self._scenario_feed.close()
        self._scenario_feed = ScenarioFeed.for_run(self._scenario)

    # -- runs ------------------------------------------------------------------------------
    def _end_run(self, run: BehaviorRun, status: int, message: str) -> None:
        """End ``run`` (once), its state published first: the run's result goes out once it
        has ended, and behavior/state must never say PLAYING after that."""
        if run.ended:
            return
        self._publish_state(force=True)
        player = run.player
        if run.end(status, message, int(player.last_frame) if player is not None else 0):
            self.get_logger().info(message)
            feed = self._scenario_feed
            if feed is not None and run is self._run:
                feed.ended(next(name for name, code in STATUS_CODES.items() if code == status),
                           message)
            self._events.put(SERVED)

    def _run_ended_by_itself(self) -> None:
        """The engine says FINISHED or ERROR: release the focus, end the run."""
        run = self._run
        player = run.player if run is not None else None
        if run is None or run.ended or player is None \
                or player.status not in ("FINISHED", "ERROR"):
            return
        self._release_focus()
        if player.status == "FINISHED":
            self._end_run(run, BehaviorState.FINISHED, "%s finished at frame %d"
                          % (run.behavior, player.last_frame))
        else:
            self._end_run(run, BehaviorState.ERROR, "%s failed: %s"
                          % (run.behavior, player.last_error))

    def stop_run(self, run: BehaviorRun, reason: str) -> None:
        """Stop ``run`` if it still runs: its boxes' onStop, unload, focus released; it ends
        STOPPED saying ``reason``."""
        if isinstance(run, RobotBehaviorRun):
            run.stop(reason)
            return
        with self._lock:
            if run is not self._run or run.ended:
                return
            run.stop_reason = reason
            player = run.player
            try:
                if player is not None and player.status in ("PLAYING", "PAUSED"):
                    player.stop()
            except Exception as error:  # a failing box must not keep the runner from going on
                self.get_logger().error("stopping %s: %s" % (run.behavior, error))
        self._release_focus()
        self._end_run(run, BehaviorState.STOPPED, "%s stopped: %s" % (run.behavior, reason))

    def _is_loaded(self, behavior: str) -> bool:
        """Whether ``behavior`` (a name or a path) is the loaded behavior."""
        loaded = self._loaded
        if loaded is None:
            return False
        if behavior in (loaded.name, loaded.path):
            return True
        return os.path.realpath(behavior) == os.path.realpath(loaded.path)

    def start_run(self, goal: Any) -> BehaviorRun:
        """Run the behavior of a ``behavior/run`` goal (preempting the run in progress),
        once a robot that may still be starting is connected; ``ValueError`` saying why it
        cannot."""
        self._robot.wait_started()
        with self._start_lock:
            current = self._run
            if current is not None and not current.ended:
                self.stop_run(current, "preempted by a new behavior/run goal")
            if not runs_here(goal.request.behavior, self._is_loaded(goal.request.behavior)):
                run = self._installed.start(goal)  # an installed behavior: on the robot
                self._run = run
                run.watch()
                return run
            return self._start_here(goal)

    def _start_here(self, goal: Any) -> BehaviorRun:
        """Run the goal's behavior in the runner (see :meth:`start_run`)."""
        request = goal.request
        if request.label:
            target: Optional[Union[str, int]] = request.label
        elif request.frame >= 0:
            target = int(request.frame)
        elif request.frame != -1:
            raise ValueError("frame must be -1 (none) or a frame >= 0, got %d" % request.frame)
        else:
            target = None
        with self._lock:
            if request.behavior and not self._is_loaded(request.behavior):
                self._replace_behavior(request.behavior, from_peer=True)
            player = self._player()
            if player.status in ("ERROR", "IDLE"):
                player.load()
            if target is None:
                player.rewind()  # a fresh run, wherever a goto left the behavior
            else:
                try:
                    player.goto(target, play=False)
                except GotoError as error:
                    raise ValueError(str(error)) from None
            refused = self._play_loaded(request.stack_current, goal)
            if refused:
                raise ValueError(refused)
            return self._run

    # -- state and focus -------------------------------------------------------------------
    def _state_message(self) -> BehaviorState:
        message = BehaviorState()
        with self._lock:  # stamped once it can be read (a load may hold it for a while)
            message.header.stamp = self.get_clock().now().to_msg()
            loaded = self._loaded
            player = loaded.player if loaded is not None else None
            run = self._run
            if loaded is not None:
                message.behavior = loaded.name
            if player is not None:
                message.status = STATUS_CODES[player.status]
                message.frame = int(player.last_frame)
                message.fps = float(player.fps)
                message.states = list(player.state_names)
                message.active_boxes = list(player.active_boxes)
                message.last_error = player.last_error or ""
            else:
                message.status, message.last_error = self._robot_status
            if run is not None and (player is None or run.player is player):
                errors, warnings = run.errors(), run.warnings()
                message.error_count = run.error_count
                message.warning_count = run.warning_count
            elif player is not None:  # loaded, never played: what loading it said
                errors, warnings = player.errors, player.warnings
                message.error_count = player.error_count
                message.warning_count = player.warning_count
            else:
                errors, warnings = [], []
            message.errors = [error_message(error) for error in errors[-STATE_ERRORS:]]
            message.warnings = [warning_message(warning)
                                for warning in warnings[-STATE_ERRORS:]]
        return message

    def _publish_state(self, force: bool = False) -> None:
        """Publish behavior/state if anything but the frame changed (or ``force``), and send
        it as feedback of the goal being run.

        Built and published under the runner's lock, by whichever thread (events thread,
        connection thread, services, the timer while playing): states go out, to the topic
        and to the live view, in the order they were built, so an older state never follows
        the one saying how a run ended.  A change of focus not published yet goes out first:
        the focus is taken before a run's first box starts and released before its end is
        told, and no state says otherwise.
        """
        if self._closed:
            return
        self._publish_focus()
        with self._lock:
            message = self._state_message()
            key = (message.behavior, message.status, tuple(message.states),
                   tuple(message.active_boxes), message.last_error, message.error_count,
                   message.warning_count)
            if not force and key == self._last_state:
                return
            self._last_state = key
            self._state_pub.publish(message)
            RunActionServer.feedback(self._run, message)
            if self._view is not None:
                self._view.show_state(message, self._loaded.player
                                      if self._loaded is not None else None)
        self._diagnostics.update()

    def _diagnostic_statuses(self) -> list:
        """Robot connection, behavior status and where motion goes, for /diagnostics."""
        state = self._state_message()
        status = next((name for name, code in STATUS_CODES.items() if code == state.status),
                      str(state.status))
        level = diagnostics.ERROR if state.status == BehaviorState.ERROR else diagnostics.OK
        text = "%s %s" % (status, state.behavior or "(no behavior loaded)")
        if state.last_error:
            text += ": " + state.last_error
        behavior = diagnostics.status(self, "behavior", level, text, self._robot.url, {
            "behavior": state.behavior, "status": status, "last_error": state.last_error,
            "error_count": state.error_count})
        statuses = [diagnostics.connection_status(self, self._robot), behavior]
        motion = getattr(self, "_motion", None)
        if motion is not None:
            level = diagnostics.OK
            if motion.bridge_ready:
                output, text = "naoqi_bridge", "motion goes through naoqi_bridge"
            elif motion.mode == "bridge":
                output, level = "none", diagnostics.WARN
                text = "no naoqi_bridge connected to the robot is up: motion fails " \
                       "(motion_output bridge)"
            else:
                why = ("no naoqi_bridge connected to the robot" if motion.mode == "auto"
                       else "motion_output direct")
                output = "direct"
                text = "motion goes to ALMotion on the runner's own session (%s)" % why
            statuses.append(diagnostics.status(self, "motion", level, text,
                                               self._robot.url,
                                               {"output": output, "motion_output": motion.mode}))
        return statuses

    def _publish_state_while_playing(self) -> None:
        with self._lock:
            player = self._loaded.player if self._loaded is not None else None
            playing = player is not None and player.status == "PLAYING"
        if playing:
            self._publish_state(force=True)

    def _focus_changed(self) -> None:
        """Have the events thread publish behavior/focus (never waits: libqi threads call it)."""
        self._events.put(FOCUS_CHANGED)

    def _publish_focus(self) -> None:
        """Publish the focus if it changed (by any thread: one at a time, in order)."""
        with self._focus_publish_lock:
            if self._closed:
                return
            message = self._focus.changed_message(self.get_clock().now().to_msg())
            if message is None:
                return
            self._focus_pub.publish(message)
            if self._view is not None:
                self._view.show_focus(message)

    def _activity_name(self) -> str:
        name = self.get_parameter("activity_name").value
        return name or "naoqi_qicore/" + (self._loaded.name if self._loaded else "behavior")

    def _take_focus(self, stack: bool, then: Callable[[], None]) -> str:
        """switchFocus to this behavior's activity, then ``then()``; "" on success, else
        why not (and ``then`` is not called).

        ``then`` runs in the thread that receives the robot's answer, as soon as it comes
        (one thread wake-up less before the behavior starts): it must not wait.  For a
        play it is ``BehaviorPlayer.play``, which enters the first state there (the onLoad
        methods of its boxes run before the service answers).
        """
        if not self.get_parameter("take_focus").value:
            then()
            return ""
        life = self._life
        if life is None:
            return "the robot has no ALAutonomousLife (set take_focus:=false to play anyway)"
        activity = self._activity_name()
        flags = STOP_AND_STACK_CURRENT if stack else STOP_CURRENT
        try:
            # stacking needs what the robot has focused now (its signal about the last change
            # may still be on its way); otherwise what its focus signals said last will do,
            # one robot round trip less
            previous = str(life.focusedActivity() or "") if stack else self._focus.focused
        except RuntimeError as error:
            return "ALAutonomousLife.focusedActivity: %s" % error
        if previous == activity:
            self._focus_changed()
            then()
        else:
            answer: List[Any] = []  # the refusal, or what then() raised
            answered = threading.Condition()

            def on_answer(future: Any) -> None:
                with answered:
                    if answer:  # given up on (timeout)
                        return
                    try:
                        if future.hasError():
                            self._focus.call_failed()
                            answer.append("ALAutonomousLife.switchFocus(%r): %s"
                                          % (activity, future.error()))
                        else:
                            # the focus is this behavior's before its first box runs: the
                            # state saying it runs never goes out with the focus before
                            self._focus.switched(activity, flags, previous)
                            self._focus_changed()
                            then()
                            answer.append(None)
                    except Exception as error:  # handed to the waiting thread below
                        answer.append(error)
                    answered.notify_all()
            self._focus.switching(activity, flags, previous)
            try:
                life.switchFocus(activity, flags, _async=True).addCallback(on_answer)
            except RuntimeError as error:
                self._focus.call_failed()
                return "ALAutonomousLife.switchFocus(%r): %s" % (activity, error)
            with answered:
                if not answered.wait_for(lambda: answer, FOCUS_TIMEOUT):
                    self._focus.call_failed()
                    answer.append("ALAutonomousLife.switchFocus(%r): no answer within %.0f s"
                                  % (activity, FOCUS_TIMEOUT))
            if isinstance(answer[0], Exception):
                raise answer[0]
            if answer[0] is not None:
                return answer[0]
        self._has_focus = True
        return ""

    def _release_focus(self) -> None:
        """stopFocus if this behavior has the focus (the stacked activity gets it back)."""
        life = self._life
        with self._focus_lock:
            if not self._has_focus or life is None:
                return
            self._has_focus = False
        activity = self._activity_name()
        try:
            if str(life.focusedActivity() or "") == activity:
                self._focus.stopping(activity)
                life.stopFocus()
                self._focus.focus_stopped(activity, str(life.focusedActivity() or ""))
        except RuntimeError as error:
            self._focus.call_failed()
            self.get_logger().error("ALAutonomousLife.stopFocus: %s" % error)
        self._focus_changed()

    # -- services --------------------------------------------------------------------------
    def _player(self) -> BehaviorPlayer:
        """The engine of the loaded behavior, or ``ValueError`` saying why there is none."""
        if self._loaded is None:
            raise ValueError("no behavior loaded (call behavior/load)")
        if self._loaded.player is None:
            raise ValueError("robot %s not connected: %s" % (self._robot.url,
                                                              self._robot.message))
        return self._loaded.player

    def _play_loaded(self, stack: bool, goal: Optional[Any] = None) -> str:
        """Play the loaded behavior (a new run, for ``goal`` if given); "" on success, else
        why not."""
        if self._recorder is not None:
            missing = self._recorder.wait_for_robot_streams()
            if missing:
                self.get_logger().warning(
                    "bag_file: no naoqi_bridge connected to the robot streams %s: the "
                    "recording may miss the start of the run" % ", ".join(missing))
        with self._lock:
            try:
                player = self._player()
            except ValueError as error:
                return str(error)
            if player.status == "PLAYING":
                return "%s is already playing" % self._loaded.name
            if player.status == "PAUSED":
                return "%s is paused: call behavior/resume" % self._loaded.name
            if player.status in ("ERROR", "IDLE"):
                player.load()
            previous, self._run = self._run, BehaviorRun(self._loaded.name, player, goal)
            self._feed_scenario()
            refused = self._take_focus(stack, then=player.play)
            if refused:
                self._run = previous
            return refused

    def _answer(self, response: Any, action: Callable[[], str], moved: bool = False) -> Any:
        """Fill ``response`` from ``action()``: "" or a message is success, ValueError not.

        ``moved``: the action changes the frame, so the state goes out even when paused.
        The state is published by the events thread, after the answer.  A robot that may
        still be starting is waited for first (``robot_start_timeout``).
        """
        self._robot.wait_started()
        try:
            response.message = action()
            response.success = True
        except (ValueError, GotoError) as error:
            response.success, response.message = False, str(error)
        except Exception as error:  # engine or robot failure: answer, keep serving
            self.get_logger().error("%s" % error)
            response.success, response.message = False, "%s: %s" % (type(error).__name__, error)
        self._events.put(FRAME_MOVED if moved and response.success else SERVED)
        return response

    def _play(self, request: Play.Request, response: Play.Response) -> Play.Response:
        def play() -> str:
            refused = self._play_loaded(request.stack_current)
            if refused:
                raise ValueError(refused)
            return "playing %s" % self._loaded.name
        return self._answer(response, play)

    def _stop(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        def stop() -> str:
            run = self._run
            if isinstance(run, RobotBehaviorRun) and not run.ended:
                self.stop_run(run, "behavior/stop was called")
                return "stopped %s on the robot" % run.behavior
            with self._lock:
                player = self._player()
                if player.status not in ("PLAYING", "PAUSED"):
                    raise ValueError("%s is not playing (%s)" % (self._loaded.name,
                                                                player.status.lower()))
                run = self._run
            if run is not None and run.player is player:
                self.stop_run(run, "behavior/stop was called")
            else:
                with self._lock:
                    player.stop()
                self._release_focus()
            return "stopped %s" % self._loaded.name
        return self._answer(response, stop)

    def _step(self, response: Any, required: str, done: str,
              action: Callable[[BehaviorPlayer], None]) -> Any:
        """``action(player)`` when the player's status is ``required``; answer what was done."""
        def step() -> str:
            with self._lock:
                player = self._player()
                if player.status != required:
                    raise ValueError("%s is not %s (%s)" % (self._loaded.name, required.lower(),
                                                            player.status.lower()))
                action(player)
                return "%s %s at frame %d" % (done, self._loaded.name, player.frame)
        return self._answer(response, step)

    def _pause(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        return self._step(response, "PLAYING", "paused", BehaviorPlayer.pause)

    def _resume(self, request: Trigger.Request, response: Trigger.Response) -> Trigger.Response:
        return self._step(response, "PAUSED", "resumed", BehaviorPlayer.resume)

    def _goto(self, request: GoTo.Request, response: GoTo.Response) -> GoTo.Response:
        def goto() -> str:
            if request.label:
                target: Any = request.label
            elif request.frame >= 0:
                target = int(request.frame)
            else:
                raise ValueError("give a label or a frame >= 0")
            with self._lock:
                player = self._player()
                response.frame = int(player.last_frame)  # where it stays if the goto fails
                response.frame = player.goto(target, play=player.status == "PLAYING")
                return "%s at frame %d" % (self._loaded.name, response.frame)
        return self._answer(response, goto, moved=True)

    def _replace_behavior(self, path: str, from_peer: bool = False) -> _Loaded:
        """Load ``path`` and make it the runner's behavior; ``ValueError`` keeps the old one.
        A path a peer gave must be inside ``behavior_roots``: box code runs with the
        runner's rights."""
        if not path:
            raise ValueError("path is empty")
        if from_peer and not is_under(Path(path), self._behavior_roots):
            raise ValueError(outside_message(path, self._behavior_roots, "behavior_roots"))
        behavior, warnings = load_behavior(path, self._cache_dir)
        for warning in warnings:
            self.get_logger().warning(warning)
        name = behavior_name(path)
        loaded = _Loaded(name, path, behavior)
        with self._lock:
            previous = self._loaded
            run = self._run
            if run is not None and not run.ended:
                self.stop_run(run, "behavior/load loaded %s" % name)
            if previous is not None and previous.player is not None:
                was_focused = previous.player.status in ("PLAYING", "PAUSED")
                self._unload_player(previous)
                if was_focused:
                    self._release_focus()
            if self._robot.connected:
                try:
                    self._start_player(loaded)
                except Exception as error:  # the engine refused it: the previous one comes back
                    if previous is not None:
                        self._start_player(previous)
                    raise ValueError("%s: %s" % (path, error)) from None
            self._loaded = loaded
            if self._view is not None:
                self._view.show_behavior(name, behavior.behavior)
        self.get_logger().info("loaded %s from %s" % (name, path))
        return loaded

    def _info(self, loaded: _Loaded) -> BehaviorInfo:
        info = BehaviorInfo(name=loaded.name, path=loaded.path,
                            folder=str(loaded.behavior.folder or ""))
        player = loaded.player
        if player is not None:
            labels = sorted(player.labels.items(), key=lambda item: (item[1], item[0]))
            info.labels = [label for label, _ in labels]
            info.label_frames = [int(frame) for _, frame in labels]
            info.frame_count = int(player.frame_count)
            info.fps = float(player.fps)
        return info

    def _load(self, request: LoadBehavior.Request,
              response: LoadBehavior.Response) -> LoadBehavior.Response:
        def load() -> str:
            loaded = self._replace_behavior(request.path, from_peer=True)
            response.behavior = self._info(loaded)
            return "loaded %s" % loaded.name
        return self._answer(response, load)

    def _list(self, request: ListBehaviors.Request,
              response: ListBehaviors.Response) -> ListBehaviors.Response:
        def list_behaviors() -> str:
            with self._lock:
                loaded = self._loaded
                if loaded is not None:
                    response.behaviors.append(self._info(loaded))
            return "%d behavior(s) loaded" % len(response.behaviors)
        return self._answer(response, list_behaviors)


def main(args: Optional[List[str]] = None) -> int:
    """Console entry point of ``behavior_runner``."""
    return run_node(lambda: BehaviorRunner(), PROGRAM, args)
