"""What naoqi_bridge's readings of the robot cost: CPU of the bridge and of the simulated
robot while the bridge publishes joint_states and the transforms at 50 Hz.

Starts ``naoqi_sim`` and ``naoqi_bridge`` (with the ``--ros-args`` given after ``--``, e.g.
``-p publish_tf:=false`` or ``-p publish_joint_states:=false`` for the bridge without its
readings), lets them settle, then prints each process's CPU use over ``--seconds`` (in % of
one core) and the rate of ``joint_states`` and ``/tf`` a subscriber receives.

    .venv/bin/python bench/bench_bridge_readings.py [--seconds 10] [-- -p publish_tf:=false]
"""
import argparse
import os
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
os.environ.setdefault("ROS_DOMAIN_ID", str(random.randint(102, 200)))
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")

import psutil  # noqa: E402
import rclpy  # noqa: E402
from rclpy.executors import SingleThreadedExecutor  # noqa: E402
from sensor_msgs.msg import JointState  # noqa: E402
from tf2_msgs.msg import TFMessage  # noqa: E402

from naoqi_qicore.ros.launcher import Plan, ProcessGroup, free_tcp_port, wait_for_port  # noqa: E402

#: how long the processes run before the measure (s): started, connected, discovered
SETTLE = 6.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="length of the measure")
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
    try:
        port = free_tcp_port()
        url = "tcp://127.0.0.1:%d" % port
        plan = Plan(behavior="")
        simulator = group.start("naoqi_sim", plan.simulator_command(url, "nao"))
        wait_for_port("127.0.0.1", port, 30.0, simulator)
        bridge = group.start("naoqi_bridge", plan.bridge_command(url)
                             + list(arguments.bridge_arguments))
        settle = time.monotonic() + SETTLE
        while time.monotonic() < settle:
            executor.spin_once(timeout_sec=0.05)
        processes = {"naoqi_sim": psutil.Process(simulator.pid),
                     "naoqi_bridge": psutil.Process(bridge.pid)}
        before = {name: process.cpu_times() for name, process in processes.items()}
        start_counts = dict(counts)
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
        print("machine: %d CPUs, load average %.2f" % (os.cpu_count(), os.getloadavg()[0]))
    finally:
        group.stop_all()
        node.destroy_node()
        rclpy.try_shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
