"""Play a Choregraphe behavior: naoqi_bridge + behavior_runner (+ a simulated robot).

    ros2 launch naoqi_qicore run_behavior.launch.py behavior:=/path/to/behavior.xar
    ros2 launch naoqi_qicore run_behavior.launch.py     # no behavior: behavior/run goals name one
    ros2 launch naoqi_qicore run_behavior.launch.py behavior:=b.xar robot_url:=tcp://10.0.0.5:9559 \
        namespace:=nao1 autoplay:=true

With ``autoplay:=true`` the behavior runs once the robot is connected and the launch ends
when the run ends: its exit status is 0 when the run succeeded (the behavior finished with no
error), non-zero otherwise; a node that exits with an error (a behavior that cannot be
loaded, a robot that cannot be reached) ends the launch non-zero too, so that a CI job can
trust it (``examples/launch_testing`` shows one).

With an empty ``robot_url`` the simulated robot ``naoqi_sim`` is started on a free
loopback port and both nodes are pointed at it (``scenario:=FILE`` or ``scenario:=generic``:
people around it say and do things).  Without the launch packages, the ``run_behavior``
command starts the same set.  ``view_port:=8765`` serves the runner's live view on
http://127.0.0.1:8765/.  Goals and ``behavior/load`` may name behaviors in the folders of
``behavior_roots`` (``:``-separated; by default the folder the launch was started in, the
package's examples, the behavior's folder and the cache: the runner logs them).
"""
import os
import signal

from launch import Event, EventHandler, LaunchDescription
from launch.actions import (DeclareLaunchArgument, EmitEvent, ExecuteProcess, LogInfo,
                            OpaqueFunction, RegisterEventHandler)
from launch.event_handlers import OnProcessExit
from launch.events import Shutdown, matches_action
from launch.events.process import SignalProcess
from launch.substitutions import LaunchConfiguration, PathJoinSubstitution
from launch_ros.actions import Node
from launch_ros.substitutions import FindPackagePrefix

PACKAGE = "naoqi_qicore"
#: (name, default, description); docs/ros.md has the same table
ARGUMENTS = (
    ("behavior", "", ".xar, .pml, .crg, .pkg or converted folder to load"),
    ("robot_url", "", "qi URL of the robot (wins over nao_ip); with no robot_url, nao_ip or "
                      "robot in params_file, a simulated robot is started"),
    ("nao_ip", "", "robot address (naoqi_driver's name), used when robot_url is empty"),
    ("nao_port", "", "NAOqi port with nao_ip (empty: the nodes' default, 9559)"),
    ("username", "", "NAOqi 2.9 user name"),
    ("password_file", "", "file holding the NAOqi 2.9 password (never the password itself)"),
    ("params_file", "", "ROS parameters file (/**: ros__parameters: ...) given to both nodes; "
                        "the launch arguments win over it"),
    ("namespace", "", "ROS namespace of the nodes"),
    ("autoplay", "false", "play the behavior once the robot is connected; the launch ends "
                          "when the run ends, with status 0 when it succeeded"),
    ("log_level", "info", "log level of the nodes"),
    ("robot", "auto", "model of the simulated robot: nao, pepper or auto (the robot the "
              "behavior was written for)"),
    ("scenario", "", "what people around the simulated robot say and do: a YAML scenario "
                     "file, or 'generic' (someone answers whatever it asks)"),
    ("allow_eval", "false", "let the simulated robot's ALPythonBridge evaluate the code "
                            "clients send (for behaviors that need it; any local process could "
                            "then run code)"),
    ("view_port", "0", "port of the runner's live view, a web page on 127.0.0.1 showing the "
                       "behavior's diagram with what runs highlighted (0: no live view)"),
    ("bag_file", "", "new MCAP file the runner records the run into (joint states, robot "
                     "description, transforms, behavior state and focus, speech, motion "
                     "segments)"),
    ("behavior_roots", "", "folders, separated by ':', that behavior/run goals and "
                           "behavior/load may load behaviors from (empty: the folder the launch "
                           "was started in, the package's examples, the behavior's folder and "
                           "the cache)"),
)
#: seconds the simulated robot waits, after a shutdown starts, for both nodes to exit
#: before launch stops it anyway (SIGTERM)
SIMULATOR_STOP_TIMEOUT = "20"


class NodeFailed(Event):
    """A process of the launch failed (``reason`` says how).  Its handler raises: launch
    returns a non-zero status when an action fails, and has no other way to be told to."""

    name = "naoqi_qicore.events.NodeFailed"

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason


def _fail(context) -> None:
    """The action :class:`NodeFailed`'s handler runs: it fails the launch with the reason."""
    raise RuntimeError(context.locals.event.reason)


def exit_reason(name: str, returncode: int, autoplay_runner: bool) -> str:
    """Why the launch stops when the process ``name`` exits with ``returncode`` on its own
    (``autoplay_runner``: it is the runner, ending with its autoplayed run)."""
    if autoplay_runner and returncode == 0:
        return "the autoplayed run succeeded: stopping the launch"
    if autoplay_runner:
        return ("the autoplayed run did not succeed (%s exited with code %s; its result is "
                "above): stopping the launch" % (name, returncode))
    return "%s exited with code %s: stopping the launch (its error is above)" % (name, returncode)


def failed(returncode: int, shutting_down: bool) -> bool:
    """Whether a process's exit fails the launch: an error status of its own, or a signal
    that did not come from the launch's own shutdown (a crash)."""
    return returncode > 0 or (returncode != 0 and not shutting_down)


def _plan(value):
    """The launch arguments as run_behavior's plan (the same rules for both)."""
    from naoqi_qicore.ros.launcher import Plan
    from naoqi_qicore.ros.path_roots import split_roots
    params_file = os.path.abspath(value["params_file"]) if value["params_file"] else ""
    scenario = value["scenario"]
    if scenario and scenario != "generic":
        scenario = os.path.abspath(scenario)
    return Plan(behavior=value["behavior"], robot_url=value["robot_url"],
                namespace=value["namespace"],
                autoplay=value["autoplay"].lower() in ("true", "1"),
                log_level=value["log_level"], robot=value["robot"], scenario=scenario,
                params_file=params_file, nao_ip=value["nao_ip"],
                nao_port=int(value["nao_port"] or 0), username=value["username"],
                password_file=(os.path.abspath(value["password_file"])
                               if value["password_file"] else ""),
                view=int(value["view_port"] or 0) or None,
                bag=os.path.abspath(value["bag_file"]) if value["bag_file"] else "",
                behavior_roots=tuple(split_roots(value["behavior_roots"])),
                allow_eval=value["allow_eval"].lower() in ("true", "1"))


def _nodes(context, *args, **kwargs):
    """The processes, once the arguments are known (a free port is picked here).

    When the runner or the bridge exits (a behavior that cannot be loaded, a robot that
    cannot be reached, the end of the autoplayed run), the whole launch shuts down saying
    why, and fails (non-zero status) when the process did.  The simulated robot ignores
    SIGINT (Ctrl-C, or launch's shutdown) and is stopped with SIGTERM once both nodes have
    exited: the runner releases the focus on a robot that is still there.
    """
    from naoqi_qicore.ros.launcher import free_tcp_port
    value = {name: LaunchConfiguration(name).perform(context) for name, _, _ in ARGUMENTS}
    plan = _plan(value)
    actions = []
    robot_url = plan.robot_url
    simulator = None
    if plan.needs_simulated_robot():
        robot_url = "tcp://127.0.0.1:%d" % free_tcp_port()
        robot, reason = plan.simulated_robot()
        actions.append(LogInfo(msg="simulated %s robot at %s: %s"
                               % ("Pepper" if robot == "pepper" else "NAO", robot_url, reason)))
        simulator = ExecuteProcess(
            cmd=[PathJoinSubstitution([FindPackagePrefix(PACKAGE), "lib", PACKAGE, "naoqi_sim"]),
                 "--robot", robot, "--listen", robot_url, "--ignore-sigint"]
            + (["--scenario", plan.scenario] if plan.scenario else [])
            + (["--allow-eval"] if plan.allow_eval else []),
            name="naoqi_sim", output="screen", sigterm_timeout=SIMULATOR_STOP_TIMEOUT)
        actions.append(simulator)
    parameters = ([plan.params_file] if plan.params_file else [])
    robot_parameters = plan.robot_parameters(robot_url)
    # a password of robot_url reaches the nodes in their environment, never a command line
    common = dict(package=PACKAGE, namespace=plan.namespace, output="screen",
                  arguments=["--ros-args", "--log-level", plan.log_level],
                  additional_env=plan.node_environment())
    bridge = Node(executable="naoqi_bridge", name="naoqi_bridge",
                  parameters=parameters + [robot_parameters], **common)
    runner_parameters = dict(plan.runner_parameters(robot_url), autoplay=plan.autoplay,
                             exit_after_run=plan.autoplay)
    if plan.view:
        from naoqi_qicore.ros.live_view import view_url
        runner_parameters["view_port"] = plan.view
        actions.append(LogInfo(msg="live view at %s" % view_url(plan.view)))
    runner = Node(executable="behavior_runner", name="behavior_runner",
                  parameters=parameters + [runner_parameters], **common)
    actions += [bridge, runner]
    exited = set()

    def on_node_exit(event, context):
        """A node (or the simulated robot) exited: shut down if it was not asked to, failing
        the launch if the process failed; the simulated robot goes once both nodes are
        gone."""
        exited.add(event.action)
        reply = []
        name = event.action.name
        if not context.is_shutdown:
            reason = exit_reason(name, event.returncode,
                                 plan.autoplay and event.action is runner)
            reply += [LogInfo(msg=reason), EmitEvent(event=Shutdown(reason=reason))]
        if simulator is not None and {bridge, runner} <= exited:
            reply.append(EmitEvent(event=SignalProcess(signal_number=signal.SIGTERM,
                                                       process_matcher=matches_action(simulator))))
        if failed(event.returncode, context.is_shutdown):
            reply.append(EmitEvent(event=NodeFailed("%s exited with code %s"
                                                    % (name, event.returncode))))
        return reply

    actions += [RegisterEventHandler(OnProcessExit(target_action=process, on_exit=on_node_exit))
                for process in (bridge, runner, simulator) if process is not None]
    return actions


def generate_launch_description() -> LaunchDescription:
    return LaunchDescription(
        [DeclareLaunchArgument(name, default_value=default, description=description)
         for name, default, description in ARGUMENTS]
        + [RegisterEventHandler(EventHandler(matcher=lambda event: isinstance(event, NodeFailed),
                                             entities=[OpaqueFunction(function=_fail)])),
           OpaqueFunction(function=_nodes)])
