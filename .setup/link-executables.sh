#!/usr/bin/env bash
# Puts naoqi_qicore's executables where `ros2 run` and launch_ros look for them in a virtual
# environment that registers the package in its ament index: <venv>/lib/naoqi_qicore/<name>
# (each a link to <venv>/bin/<name>, which pip wrote and which stays on the PATH of the
# activated shell).  `colcon build` installs them there itself (setup.cfg).  Run after
# every `pip install` of the package: the folder is rebuilt from the console scripts the
# installed package declares.
set -euo pipefail
venv=$(cd "${1:?usage: link-executables.sh VENV}" && pwd)
folder="$venv/lib/naoqi_qicore"
names=$(_ROS_WHEELS_BOOTSTRAP_COMPLETE=1 "$venv/bin/python" -c '
from importlib.metadata import distribution
print("\n".join(sorted(entry.name for entry in distribution("naoqi_qicore").entry_points
                       if entry.group == "console_scripts")))
')
rm -rf "$folder"
mkdir -p "$folder"
for name in $names; do
  if [ ! -x "$venv/bin/$name" ]; then
    echo "link-executables.sh: $venv/bin/$name is missing: is naoqi_qicore installed?" >&2
    exit 1
  fi
  ln -s "../../bin/$name" "$folder/$name"
done
