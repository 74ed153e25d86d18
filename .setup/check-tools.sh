#!/usr/bin/env bash
# Checks that the system tools the set-up needs are present (graphviz: the `dot` program
# drawing the diagrams of `xar_convert --graph`; npm, optional: it installs the library the
# live view draws the robot with); installs them with apt-get when run as root on
# Debian/Ubuntu, otherwise says what to install.
set -euo pipefail
python=${1:-python3.11}
missing=()
command -v "$python" >/dev/null || missing+=(python3.11)
command -v cmake >/dev/null || missing+=(cmake)
command -v g++ >/dev/null || missing+=(g++)
command -v dot >/dev/null || missing+=(graphviz)
if command -v "$python" >/dev/null; then
  "$python" -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3.11-venv)
  include=$("$python" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')
  [ -f "$include/Python.h" ] || missing+=(python3.11-dev)
fi
optional=()
command -v npm >/dev/null || optional+=(npm)
[ ${#missing[@]} -eq 0 ] && [ ${#optional[@]} -eq 0 ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing system packages: ${missing[*]} ${optional[*]}" >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
    "${missing[@]}" "${optional[@]}"
elif [ ${#missing[@]} -eq 0 ]; then
  echo "npm is missing: the live view will draw no 3D robot (install it with:" \
       "sudo apt-get install npm)" >&2
else
  echo "Missing system packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
