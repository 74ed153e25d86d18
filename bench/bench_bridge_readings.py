"""What naoqi_bridge's readings of the robot cost: CPU of the bridge and of the simulated
robot while the bridge publishes joint_states and the transforms at 50 Hz.

Starts ``naoqi_sim`` and ``naoqi_bridge`` (with the ``--ros-args`` given after ``--``, e.g.
``-p publish_tf:=false`` or ``-p publish_joint_states:=false`` for the bridge without its
readings), lets them settle, then prints each process's CPU use over ``--seconds`` (in % of
one core) and the rate of ``joint_states`` and ``/tf`` a subscriber receives.

``--foxglove-clients N`` turns the bridge's Foxglove server on (``foxglove_port``) and
connects N Foxglove clients (``foxglove_client.py``) subscribed to what Foxglove's 3D panel
and a plot of the joints read (:data:`FOXGLOVE_TOPICS`), then prints the rates each
receives too; ``--foxglove-clients 0`` measures the server with no client.

    .venv/bin/python bench/bench_bridge_readings.py [--seconds 10] [--foxglove-clients 1] \
        [-- -p publish_tf:=false]
"""
import argparse
import os
import random
import sys
import time
from pathlib import Path
from typing import List

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(102, 200)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import psutil  # noqa: E402
import rclpy  # noqa: E402
import websocket  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from foxglove_client import FoxgloveClient  # noqa: E402
from naoqi_qicore.ros.launcher import (SIMULATOR_LISTEN, Plan, ProcessGroup,  # noqa: E402
                                       free_tcp_port, start_simulator)

#: how long the processes run before the measure (s): started, connected, discovered
SETTLE = 6.0
#: what the Foxglove clients subscribe to: the 3D panel's robot and a plot of the joints
FOXGLOVE_TOPICS = ("/joint_states", "/tf", "/tf_static", "/robot_description")


def foxglove_clients(count: int, port: int, deadline: float) -> List[FoxgloveClient]:
    """``count`` clients of the bridge's Foxglove server, subscribed to
    :data:`FOXGLOVE_TOPICS` (the server is waited for until ``deadline``)."""
    clients: List[FoxgloveClient] = []
    while len(clients) < count:
        try:
            client = FoxgloveClient("ws://127.0.0.1:%d" % port)
        except (OSError, websocket.WebSocketException):
            if time.monotonic() > deadline:
                raise RuntimeError("no Foxglove server on port %d" % port) from None
            time.sleep(0.1)
            continue
        client.subscribe(*FOXGLOVE_TOPICS)
        clients.append(client)
    return clients


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the measure")
    parser.add_argument("--foxglove-clients", type=int, metavar="N",
                        help="turn the bridge's Foxglove server on and connect N clients "
                             "(0: the server with no client)")
    parser.add_argument("bridge_arguments", nargs="*", help="more --ros-args of the bridge")
    arguments = parser.parse_args()
    rclpy.init()
    node = rclpy.create_node("bench_bridge_readings")
    counts = {"joint_states": 0, "/tf": 0}
    node.create_subscription(JointState, "joint_states",
                             lambda _: counts.__setitem__("joint_states",
                                                          counts["joint_states"] + 1), 100)
    node.create_subscription(TFMessage, "/tf",
                             lambda _: counts.__setitem__("/tf", counts["/tf"] + 1), 100)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    group = ProcessGroup()
    clients: List[FoxgloveClient] = []
    try:
        plan = Plan(behavior="")
        simulator, url = start_simulator(group.starter("naoqi_sim"),
                                         plan.simulator_command(SIMULATOR_LISTEN, "nao"))
        foxglove_port = None if arguments.foxglove_clients is None else free_tcp_port()
        bridge = group.start("naoqi_bridge", plan.bridge_command(url, foxglove_port)
                             + list(arguments.bridge_arguments))
        settle = time.monotonic() + SETTLE
        if foxglove_port is not None:
            clients = foxglove_clients(arguments.foxglove_clients, foxglove_port, settle)
        while time.monotonic() < settle:
            executor.spin_once(timeout_sec=0.05)
        processes = {"naoqi_sim": psutil.Process(simulator.pid),
                     "naoqi_bridge": psutil.Process(bridge.pid)}
        before = {name: process.cpu_times() for name, process in processes.items()}
        start_counts = dict(counts)
        client_counts = [client.counts(FOXGLOVE_TOPICS) for client in clients]
        end = time.monotonic() + arguments.seconds
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.05)
        for name, process in processes.items():
            used = process.cpu_times()
            seconds = used.user + used.system - before[name].user - before[name].system
            print("%-13s %5.1f %% of a core" % (name, seconds / arguments.seconds * 100))
        for topic, count in counts.items():
            print("%-13s %5.1f Hz received" % (topic, (count - start_counts[topic])
                                               / arguments.seconds))
        for number, (client, before_counts) in enumerate(zip(clients, client_counts), 1):
            now = client.counts(FOXGLOVE_TOPICS)
            print("foxglove client %d: %s" % (number, ", ".join(
                "%s %.1f Hz" % (topic, (now[topic] - before_counts[topic]) / arguments.seconds)
                for topic in FOXGLOVE_TOPICS[:2])) + ("; robot_description and tf_static "
                                                      "received" if now["/robot_description"]
                                                      and now["/tf_static"] else ""))
        print("machine: %d CPUs, load average %.2f" % (os.cpu_count(), os.getloadavg()[0]))
    finally:
        for client in clients:
            client.close()
        group.stop_all()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
