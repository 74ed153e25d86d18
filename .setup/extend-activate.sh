#!/usr/bin/env bash
# Adds naoqi_qicore's part to a virtual environment's bin/activate (replacing the one an
# earlier set-up added): the ament index of the environment, and the library path the
# ROS 2 wheels' start-up hook (ros_wheels_bootstrapper) otherwise gives every interpreter
# of the environment by starting it a second time.  Commands started from the activated
# shell (xar_convert, naoqi_sim, the nodes...) then start their interpreter once.
# `deactivate` puts the three variables back as they were.
set -euo pipefail
venv=$(cd "${1:?usage: extend-activate.sh VENV}" && pwd)
activate="$venv/bin/activate"
python="$venv/bin/python"
# the folders the hook puts on the library path: <venv>/lib and the wheels' ros_*.libs
libs=$(_ROS_WHEELS_BOOTSTRAP_COMPLETE=1 "$python" -c '
import glob, os, sys, sysconfig
site = sysconfig.get_paths()["purelib"]
print(":".join([os.path.join(sys.prefix, "lib")]
               + sorted(p for p in glob.glob(os.path.join(site, "ros_*.libs")) if os.path.isdir(p))))
')
marker='# naoqi_qicore'
# drop the part an earlier set-up appended: from its first marker line to the end
line=$(grep -n "^$marker" "$activate" | head -n 1 | cut -d: -f1 || true)
if [ -n "$line" ]; then
  head -n "$((line - 1))" "$activate" > "$activate.tmp"
  mv "$activate.tmp" "$activate"
fi
cat >> "$activate" <<EOF
$marker: the environment's ament index, and the ROS 2 wheels' library path set once for
# the commands of this shell (added by naoqi_qicore's .setup/extend-activate.sh)
_naoqi_qicore_restore () {
    if [ -n "\${_NAOQI_QICORE_ACTIVE:-}" ] ; then
        if [ -n "\${_NAOQI_QICORE_OLD_AMENT:-}" ] ; then export AMENT_PREFIX_PATH="\$_NAOQI_QICORE_OLD_AMENT"; else unset AMENT_PREFIX_PATH; fi
        if [ -n "\${_NAOQI_QICORE_OLD_LD:-}" ] ; then export LD_LIBRARY_PATH="\$_NAOQI_QICORE_OLD_LD"; else unset LD_LIBRARY_PATH; fi
        if [ -z "\${_NAOQI_QICORE_OLD_GUARD:-}" ] ; then unset _ROS_WHEELS_BOOTSTRAP_COMPLETE; fi
        unset _NAOQI_QICORE_ACTIVE _NAOQI_QICORE_OLD_AMENT _NAOQI_QICORE_OLD_LD _NAOQI_QICORE_OLD_GUARD
    fi
}
_naoqi_qicore_restore
_NAOQI_QICORE_ACTIVE=1
_NAOQI_QICORE_OLD_AMENT="\${AMENT_PREFIX_PATH:-}"
_NAOQI_QICORE_OLD_LD="\${LD_LIBRARY_PATH:-}"
_NAOQI_QICORE_OLD_GUARD="\${_ROS_WHEELS_BOOTSTRAP_COMPLETE:-}"
export AMENT_PREFIX_PATH="\$VIRTUAL_ENV\${AMENT_PREFIX_PATH:+:\$AMENT_PREFIX_PATH}"
export LD_LIBRARY_PATH="$libs\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
export _ROS_WHEELS_BOOTSTRAP_COMPLETE=1
eval "_naoqi_qicore_venv_\$(typeset -f deactivate)"
deactivate () {
    _naoqi_qicore_restore
    _naoqi_qicore_venv_deactivate "\$@"
    if [ ! "\${1:-}" = "nondestructive" ] ; then
        unset -f _naoqi_qicore_venv_deactivate _naoqi_qicore_restore
    fi
}
EOF
