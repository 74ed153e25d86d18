"""``naoqi_bridge`` node: motion segments and ALAutonomousLife of a robot, over ROS 2.

Topics (relative names, so ``__ns`` namespaces them):

* ``robot/connection`` (RobotConnection, latched): state of the libqi connection; its
  DDS liveliness (lease ``qos.BRIDGE_LEASE_S``) tells behavior_runner the bridge is up.
* ``motion/keyframes`` (MotionKeyframes, subscribed) and ``motion/stop`` (MotionStop,
  subscribed): segments started and stopped by the engine's
  :class:`~naoqi_qicore.core.motion.ALMotionSink` on the robot session.
* ``motion/status`` (MotionStatus): what that sink reports, STARTED, then FINISHED, STOPPED
  or FAILED (with the robot's error) per segment.
* ``life/state`` (std_msgs/String, latched): ALAutonomousLife state.
* ``life/focus`` (ActivityFocus, latched): focused activity, previous one and reasons
  (from the ``activityTransition`` signal when the robot has it, else from ALMemory).
* ``joint_states`` (sensor_msgs/JointState, ``joint_states_rate`` Hz: positions,
  velocities and motor currents) and ``robot_description`` (std_msgs/String, latched: the
  robot's URDF), as naoqi_driver2 publishes them (see ``joint_states``);
  ``publish_joint_states:=false`` leaves them, and the transforms, to a naoqi_driver2
  running beside the bridge.
* ``/tf`` and ``/tf_static`` (tf2_msgs/TFMessage): every link of the URDF at the angles
  read, the fixed joints once, and ``odom`` -> ``base_link`` from the robot's odometry (see
  ``robot_transforms``); ``publish_tf:=false`` leaves the links to a robot_state_publisher
  fed by ``joint_states`` and ``robot_description``; ``frame_prefix`` goes before every
  frame name.
* ``robot/speech`` and ``robot/heard`` (std_msgs/String): each sentence the robot starts
  saying, each phrase it recognises (see ``robot_speech``).

With ``foxglove_port`` (-1: none; 0: any free port) the bridge also serves Foxglove's
WebSocket protocol on ``foxglove_host`` (127.0.0.1; another address only with
``foxglove_allow_remote``): Foxglove shows the robot, its transforms and the run's topics
with no ROS installed beside it (see ``foxglove_relay``); the URL is logged.

Services under ``life/``: ``switch_focus``, ``stop_focus``, ``stop_all``, ``set_state``,
``get_state``, ``focused_activity``, ``get_focus_history``,
``set_autonomous_ability_enabled``.  When the robot goes away the bridge reports it,
reconnects with back-off and binds its signals and subscribers again.

Talking to a simulated robot (std_msgs/String, subscribed; they reach its
``NaoqiSimPerception`` service, see :mod:`naoqi_qicore.robot.sim.senses`, and say once that
they only work on a simulated robot otherwise): ``robot/sim/hear`` (words heard; the robot
gets a few seconds to start listening), ``robot/sim/touch`` (a part: ``head``,
``left_hand``, ``right_bumper``...), ``robot/sim/face`` (a face in view; empty: it leaves),
``robot/sim/tablet`` (``"x y"``: a tap on Pepper's tablet; a JSON object: ALMemory events a
tablet page raises).
"""
import json
import threading
from typing import Any, Callable, List, Optional, Tuple

from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticStatus
from rcl_interfaces.msg import FloatingPointRange, IntegerRange
from rclpy.node import Node
from std_msgs.msg import String
from std_srvs.srv import Trigger

from naoqi_qicore.core.motion import FAILED, ALMotionSink, MotionSegment
from naoqi_qicore.msg import (ActivityFocus, MotionKeyframes, MotionStatus, MotionStop,
                              RobotConnection)
from naoqi_qicore.robot.session import ConnectionState, RobotSession, bound_thread_pool
from naoqi_qicore.ros import diagnostics
from naoqi_qicore.ros.focus import (STOP_AND_STACK_CURRENT, STOP_CURRENT, FocusTracker,
                                    LifeObserver)
from naoqi_qicore.ros.foxglove_relay import LOOPBACK, FoxgloveRelay, is_loopback
from naoqi_qicore.ros.joint_states import DEFAULT_RATE, JointStateStream
from naoqi_qicore.ros.motion_messages import bezier_arguments
from naoqi_qicore.ros.qos import BRIDGE_CONNECTION, COMMANDS, LATCHED
from naoqi_qicore.ros.node_parameters import NodeParameter, NodeProgram, declare_parameters
from naoqi_qicore.ros.robot_parameters import (CONNECTION_PARAMETERS, ROBOT_SERVICES,
                                               declare_robot_parameters, robot_address)
from naoqi_qicore.ros.robot_speech import SpeechTopics
from naoqi_qicore.ros.robot_transforms import RobotTransforms
from naoqi_qicore.ros.spin import NodeSetupError, run_node
from naoqi_qicore.srv import GetFocusHistory, SetAutonomousAbility, SetLifeState, SwitchFocus

LIFE_STATES = ("solitary", "interactive", "safeguard", "disabled")
#: the simulated robot's service behind the robot/sim/* topics
SIM_PERCEPTION = "NaoqiSimPerception"
#: how long words sent on robot/sim/hear wait for the robot to listen (s)
SIM_HEAR_WAIT_S = 5.0
NODE_NAME = "naoqi_bridge"
#: libqi threads the bridge keeps at most (it starts 3; its callbacks are short)
QI_THREADS = 6
BRIDGE_PARAMETERS = (
    NodeParameter("max_retry_delay", 2.0, "longest wait between two connection attempts (s)",
                  constraints=dict(floating_point_range=[
                      FloatingPointRange(from_value=0.05, to_value=60.0)])),
    NodeParameter("publish_joint_states", True, "publish joint_states and robot_description "
                  "(false: leave them to a naoqi_driver2 running beside)"),
    NodeParameter("joint_states_rate", DEFAULT_RATE, "joint_states rate (Hz)",
                  constraints=dict(floating_point_range=[
                      FloatingPointRange(from_value=1.0, to_value=100.0)])),
    NodeParameter("publish_tf", True, "publish the links' transforms on /tf and /tf_static "
                  "from the joint angles (false: leave them to a robot_state_publisher fed by "
                  "joint_states and robot_description; odom -> base_link is published either "
                  "way)"),
    NodeParameter("frame_prefix", "", "put before every frame name of /tf and /tf_static "
                  "(robot_state_publisher's parameter: several robots on one ROS graph)"),
    NodeParameter("foxglove_port", -1, "serve Foxglove's WebSocket protocol on this port, "
                  "read only: the robot, its transforms and the run's topics for Foxglove "
                  "with no ROS installed beside it (-1: no server; 0: any free port; the URL "
                  "is logged)", constraints=dict(integer_range=[
                      IntegerRange(from_value=-1, to_value=65535, step=1)])),
    NodeParameter("foxglove_host", LOOPBACK, "address the Foxglove server listens on: a "
                  "loopback address unless foxglove_allow_remote"),
    NodeParameter("foxglove_allow_remote", False, "let foxglove_host be an address other "
                  "machines reach (they then see the robot and the run, unauthenticated)"),
)
#: what naoqi_bridge --help says
PROGRAM = NodeProgram("naoqi_bridge", NODE_NAME, __doc__,
                      CONNECTION_PARAMETERS + BRIDGE_PARAMETERS)


class NaoqiBridge(Node):
    """Executes motion segments on a robot and exposes its ALAutonomousLife."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(NODE_NAME, **kwargs)
        declare_robot_parameters(self)
        declare_parameters(self, BRIDGE_PARAMETERS)
        try:
            address = robot_address(self)
        except ValueError as error:
            raise NodeSetupError(str(error)) from None
        self._life: Any = None
        self._focus = FocusTracker(self.get_fully_qualified_name())
        #: held while a focus is taken and published (libqi and service threads publish)
        self._focus_publish_lock = threading.Lock()
        self._life_observer = LifeObserver(self._focus, self._publish_life_state,
                                           self._publish_focus)
        self._closed = False
        #: motion failures for /diagnostics: how many, the last one, and whether the last
        #: segment reported failed (WARN until a segment finishes again)
        self._motion_failures = 0
        self._last_motion_failure = ""
        self._motion_failing = False

        self._connection_pub = self.create_publisher(RobotConnection, "robot/connection",
                                                     BRIDGE_CONNECTION)
        self._status_pub = self.create_publisher(MotionStatus, "motion/status", COMMANDS)
        self._life_state_pub = self.create_publisher(String, "life/state", LATCHED)
        self._focus_pub = self.create_publisher(ActivityFocus, "life/focus", LATCHED)
        self.create_subscription(MotionKeyframes, "motion/keyframes", self._on_keyframes,
                                 COMMANDS)
        self.create_subscription(MotionStop, "motion/stop", self._on_stop, COMMANDS)
        self._perception: Any = None  # NaoqiSimPerception; False: the robot has none
        self._said_not_simulated = False
        for topic, handler in (("robot/sim/hear", self._sim_hear),
                               ("robot/sim/touch", self._sim_touch),
                               ("robot/sim/face", self._sim_face),
                               ("robot/sim/tablet", self._sim_tablet)):
            self.create_subscription(String, topic, handler, COMMANDS)
        services = [
            (SwitchFocus, "life/switch_focus", self._switch_focus),
            (Trigger, "life/stop_focus", self._stop_focus),
            (Trigger, "life/stop_all", self._stop_all),
            (SetLifeState, "life/set_state", self._set_state),
            (Trigger, "life/get_state", self._get_state),
            (Trigger, "life/focused_activity", self._focused_activity),
            (GetFocusHistory, "life/get_focus_history", self._get_focus_history),
            (SetAutonomousAbility, "life/set_autonomous_ability_enabled",
             self._set_autonomous_ability),
        ]
        for service_type, name, handler in services:
            self.create_service(service_type, name, handler)

        self._joint_states: Optional[JointStateStream] = None
        if self.get_parameter("publish_joint_states").value:
            transforms = RobotTransforms(self, self.get_parameter("publish_tf").value,
                                         self.get_parameter("frame_prefix").value)
            self._joint_states = JointStateStream(
                self, self.get_parameter("joint_states_rate").value, transforms)
        self._speech = SpeechTopics(self)
        self._foxglove = self._start_foxglove()
        self._robot = RobotSession(address, max_retry_delay=self.get_parameter(
            "max_retry_delay").value, required_services=ROBOT_SERVICES,
            start_timeout=self.get_parameter("robot_start_timeout").value,
            warn=self.get_logger().warning, inform=self.get_logger().info)
        self._motion = ALMotionSink(self._robot.session, self._publish_status)
        self._robot.add_connected_callback(self._bind)
        self._robot.add_state_callback(self._on_connection_state)
        self._diagnostics = diagnostics.Diagnostics(self, self._diagnostic_statuses)
        self._publish_connection(self._robot.state, self._robot.message)
        self._robot.start()

    def _start_foxglove(self) -> Optional[FoxgloveRelay]:
        """The Foxglove server ``foxglove_port`` asks for, or None."""
        port = self.get_parameter("foxglove_port").value
        if port < 0:
            return None
        host = self.get_parameter("foxglove_host").value
        allow_remote = self.get_parameter("foxglove_allow_remote").value
        if not allow_remote and not is_loopback(host):
            raise NodeSetupError("foxglove_host %s is not a loopback address: other machines "
                                 "could watch the robot (foxglove_allow_remote:=true allows "
                                 "it)" % host)
        try:
            relay = FoxgloveRelay(self, port, host, allow_remote)
        except ValueError as error:
            raise NodeSetupError("foxglove_port %d: %s" % (port, error)) from None
        self.get_logger().info("Foxglove: open %s (Open connection, Foxglove WebSocket)"
                               % relay.url)
        return relay

    def _diagnostic_statuses(self) -> List[DiagnosticStatus]:
        """Robot connection and motion, for /diagnostics."""
        if self._motion_failing:
            level, message = diagnostics.WARN, "last segment failed: " + self._last_motion_failure
        else:
            level, message = diagnostics.OK, ("no motion failure" if not self._motion_failures
                                              else "segments run")
        motion = diagnostics.status(self, "motion", level, message, self._robot.url, {
            "failed_segments": self._motion_failures,
            "last_failure": self._last_motion_failure})
        return [diagnostics.connection_status(self, self._robot), motion]

    def close(self) -> None:
        """Disconnect from the robot (nothing is published any more)."""
        self._closed = True
        diagnostics_ = getattr(self, "_diagnostics", None)
        if diagnostics_ is not None:
            diagnostics_.close()
        for stream in (getattr(self, "_foxglove", None), getattr(self, "_joint_states", None),
                       getattr(self, "_speech", None)):
            if stream is not None:
                stream.close()
        self._robot.close()

    # -- connection ------------------------------------------------------------------------
    def _now(self):
        return self.get_clock().now().to_msg()

    def _publish_connection(self, state: ConnectionState, message: str) -> None:
        msg = RobotConnection(state=int(state), url=self._robot.url, message=message)
        msg.header.stamp = self._now()
        self._connection_pub.publish(msg)

    def _on_connection_state(self, state: ConnectionState, message: str) -> None:
        if self._closed:
            return
        if state == ConnectionState.CONNECTED:
            self.get_logger().info("connected to %s" % self._robot.url)
        elif state == ConnectionState.DISCONNECTED:  # the session warned why
            self._forget_robot(message)
        self._publish_connection(state, message)
        self._diagnostics.update()

    def _forget_robot(self, reason: str) -> None:
        """The connection is gone: its proxies and running segments with it."""
        self._life = None
        self._perception = None
        self._motion.forget(reason)
        self._speech.forget()
        if self._joint_states is not None:
            self._joint_states.forget()

    def _bind(self, session: Any) -> None:
        """Fetch ALAutonomousLife and connect the signals of a new connection."""
        self._perception = None  # looked up again at the next robot/sim/* message
        self._life = self._life_observer.bind(session)
        if self._life is None:
            self.get_logger().warning("the robot has no ALAutonomousLife: life/* services fail")
        for topics, what in ((self._joint_states, "joint_states"),
                             (self._speech, "robot/speech and robot/heard")):
            if topics is None:
                continue
            try:
                topics.bind(session)
            except RuntimeError as error:
                self.get_logger().error("%s: %s" % (what, error))

    # -- motion ----------------------------------------------------------------------------
    def _publish_status(self, segment_id: int, status: str, message: str) -> None:
        """Publish what ALMotionSink reports (its status names are MotionStatus's)."""
        if self._closed:
            return
        msg = MotionStatus(segment_id=segment_id, status=getattr(MotionStatus, status),
                           message=message)
        msg.header.stamp = self._now()
        self._status_pub.publish(msg)
        if status == FAILED:
            self._motion_failures += 1
            self._last_motion_failure = "segment %d: %s" % (segment_id, message)
            self._motion_failing = True
        elif status == "FINISHED":
            self._motion_failing = False
        self._diagnostics.update()

    def _on_keyframes(self, message: MotionKeyframes) -> None:
        segment_id = message.segment_id
        try:
            self._motion.send(MotionSegment(segment_id, *bezier_arguments(message)))
        except (ValueError, RuntimeError) as error:
            reason = str(error) if self._robot.connected else \
                "robot not connected: " + self._robot.message
            self.get_logger().error("motion segment %d: %s" % (segment_id, reason))
            self._publish_status(segment_id, FAILED, reason)

    def _on_stop(self, message: MotionStop) -> None:
        try:
            if message.segment_id == MotionStop.ALL:
                self._motion.stop_all()
            else:
                self._motion.stop(message.segment_id)
        except RuntimeError as error:  # connection lost: forget() reports the segments
            self.get_logger().warning("stopping motion segment %d: %s"
                                      % (message.segment_id, error))

    # -- simulated robot: what it perceives ------------------------------------------------
    def _sim_perception(self, topic: str) -> Any:
        """The robot's NaoqiSimPerception service, or None (said why in the log)."""
        if not self._robot.connected:
            self.get_logger().warning("%s: robot not connected: %s" % (topic, self._robot.message))
            return None
        if self._perception is None:
            try:
                self._perception = self._robot.session.service(SIM_PERCEPTION)
            except RuntimeError:
                self._perception = False
        if self._perception is False:
            if not self._said_not_simulated:
                self._said_not_simulated = True
                self.get_logger().warning(
                    "robot/sim/* topics only work on a simulated robot (naoqi_sim): the robot "
                    "at %s has no %s service, so %s is ignored (and so are the next ones)"
                    % (self._robot.url, SIM_PERCEPTION, topic))
            return None
        return self._perception

    def _perceive(self, topic: str, what: str, call: Callable[[Any], Any]) -> None:
        """Call the simulated robot's senses without waiting; log what it made of it."""
        perception = self._sim_perception(topic)
        if perception is None:
            return
        try:
            future = call(perception)
        except RuntimeError as error:
            self.get_logger().error("%s %s: %s" % (topic, what, error))
            return

        def done(result: Any) -> None:
            if self._closed:
                return
            if result.hasError():
                self.get_logger().error("%s %s: %s" % (topic, what, result.error()))
            else:
                self.get_logger().info("%s %s: %s" % (topic, what, result.value()))
        future.addCallback(done)

    def _sim_hear(self, message: String) -> None:
        # imported here: the simulated robot's senses bring its services, which a bridge
        # to a real robot never needs (about 0.4 s of CPU at each start)
        from naoqi_qicore.robot.sim.senses import DEFAULT_CONFIDENCE
        self._perceive("robot/sim/hear", repr(message.data), lambda senses: senses.hear(
            message.data, DEFAULT_CONFIDENCE, SIM_HEAR_WAIT_S, _async=True))

    def _sim_touch(self, message: String) -> None:
        part = message.data.strip() or "head"
        self._perceive("robot/sim/touch", part,
                       lambda senses: senses.touch(part, _async=True))

    def _sim_face(self, message: String) -> None:
        name = message.data.strip()
        self._perceive("robot/sim/face", repr(name),
                       lambda senses: senses.face(name, _async=True))

    def _sim_tablet(self, message: String) -> None:
        text = message.data.strip()
        if text.startswith("{"):
            try:
                events = json.loads(text)
            except ValueError as error:
                self.get_logger().error("robot/sim/tablet: not JSON: %s" % error)
                return
            if not isinstance(events, dict) or not events:
                self.get_logger().error("robot/sim/tablet: expected a JSON object of events")
                return
            for key, value in events.items():
                self._perceive("robot/sim/tablet", key, lambda senses, key=key, value=value:
                               senses.tabletEvent(key, value, _async=True))
            return
        try:
            x, y = (float(part) for part in text.replace(",", " ").split())
        except ValueError:
            self.get_logger().error("robot/sim/tablet: expected \"x y\" (pixels) or a JSON "
                                    "object of events, got %r" % text)
            return
        self._perceive("robot/sim/tablet", "tap at (%g, %g)" % (x, y),
                       lambda senses: senses.tabletTouch(x, y, _async=True))

    # -- autonomous life: robot -> topics --------------------------------------------------
    def _publish_focus(self) -> None:
        """Publish the focus if it changed."""
        with self._focus_publish_lock:
            message = self._focus.changed_message(self._now())
            if message is not None:
                self._focus_pub.publish(message)

    def _publish_life_state(self, state: str) -> None:
        self._life_state_pub.publish(String(data=state))

    # -- autonomous life: services ---------------------------------------------------------
    def _call_life(self, response: Any, call: Callable[[Any], Any]) -> Tuple[bool, Any]:
        """``(True, call(ALAutonomousLife))``, or ``(False, None)`` with ``response`` filled."""
        life = self._life
        if life is None:
            response.success = False
            response.message = ("robot not connected: " + self._robot.message
                                if not self._robot.connected else "the robot has no ALAutonomousLife")
            return False, None
        try:
            result = call(life)
        except (RuntimeError, TypeError) as error:
            response.success, response.message = False, str(error)
            return False, None
        response.success = True
        return True, result

    def _switch_focus(self, request: SwitchFocus.Request, response: SwitchFocus.Response):
        if not request.activity_name:
            response.success, response.message = False, "activity_name is empty"
            return response
        if request.flags not in (STOP_CURRENT, STOP_AND_STACK_CURRENT):
            response.success = False
            response.message = "flags must be 0 (STOP_CURRENT) or 1 (STOP_AND_STACK_CURRENT), got %d" \
                % request.flags
            return response
        ok, previous = self._call_life(response, lambda life: life.focusedActivity())
        if ok:
            self._focus.switching(request.activity_name, request.flags, str(previous or ""))
            ok, _ = self._call_life(response, lambda life: life.switchFocus(
                request.activity_name, request.flags))
            if not ok:
                self._focus.call_failed()
        if ok:
            self._focus.switched(request.activity_name, request.flags, str(previous or ""))
            response.message = "%s has the focus" % request.activity_name
            self._publish_focus()
        return response

    def _stop_focus(self, request: Trigger.Request, response: Trigger.Response):
        ok, stopped = self._call_life(response, lambda life: life.focusedActivity())
        if ok and stopped:
            self._focus.stopping(str(stopped))
        if ok:
            ok, _ = self._call_life(response, lambda life: life.stopFocus())
        if ok:
            ok, focused = self._call_life(response, lambda life: life.focusedActivity())
        if not ok:
            self._focus.call_failed()
        else:
            self._focus.focus_stopped(str(stopped or ""), str(focused or ""))
            response.message = "focused activity: %r" % (focused or "")
            self._publish_focus()
        return response

    def _stop_all(self, request: Trigger.Request, response: Trigger.Response):
        ok, _ = self._call_life(response, lambda life: life.stopAll())
        if ok:
            self._focus.stopped_all()
            response.message = "no activity has the focus"
            self._publish_focus()
        return response

    def _set_state(self, request: SetLifeState.Request, response: SetLifeState.Response):
        if request.state not in LIFE_STATES:
            response.success = False
            response.message = "state must be one of %s, got %r" % (", ".join(LIFE_STATES),
                                                                    request.state)
            return response
        ok, _ = self._call_life(response, lambda life: life.setState(request.state))
        if ok:
            response.message = "state %s" % request.state
            self._focus.state_changed(request.state)
            self._publish_life_state(request.state)
            self._publish_focus()
        return response

    def _get_state(self, request: Trigger.Request, response: Trigger.Response):
        ok, state = self._call_life(response, lambda life: life.getState())
        if ok:
            response.message = str(state)
        return response

    def _focused_activity(self, request: Trigger.Request, response: Trigger.Response):
        ok, activity = self._call_life(response, lambda life: life.focusedActivity())
        if ok:
            response.message = str(activity or "")
        return response

    def _get_focus_history(self, request: GetFocusHistory.Request,
                           response: GetFocusHistory.Response):
        if request.depth < 0:
            response.success, response.message = False, "depth must be >= 0"
            return response
        ok, history = self._call_life(response, lambda life: (
            life.getFocusHistory(request.depth) if request.depth else life.getFocusHistory()))
        if ok:
            for entry in history or []:
                activity, when = entry[0], entry[1]
                response.activities.append(str(activity))
                response.times.append(_time_message(when))
            response.message = "%d entries" % len(response.activities)
        return response

    def _set_autonomous_ability(self, request: SetAutonomousAbility.Request,
                                response: SetAutonomousAbility.Response):
        if not request.ability:
            response.success, response.message = False, "ability is empty"
            return response
        ok, _ = self._call_life(response, lambda life: life.setAutonomousAbilityEnabled(
            request.ability, request.enabled))
        if ok:
            response.message = "%s %s" % (request.ability,
                                          "enabled" if request.enabled else "disabled")
        return response


def _time_message(when: Any) -> Time:
    """A ROS Time from a focus history time (seconds, or [sec, usec] as the robot gives)."""
    if isinstance(when, (list, tuple)):
        seconds, micros = int(when[0]), int(when[1]) if len(when) > 1 else 0
        return Time(sec=seconds, nanosec=micros * 1000)
    seconds = float(when)
    return Time(sec=int(seconds), nanosec=int((seconds - int(seconds)) * 1e9))


def main(args: Optional[List[str]] = None) -> int:
    """Console entry point of ``naoqi_bridge``."""
    # One thread: a segment is started the moment its message is taken (measured: a
    # multi-threaded executor adds tens of ms of jitter); life services wait their turn.
    bound_thread_pool(QI_THREADS)  # its joint readings would keep every thread a burst adds
    return run_node(lambda: NaoqiBridge(), PROGRAM, args)
