#!/usr/bin/env bash
# Install the Debian/Ubuntu system libraries Shoebox's Qt window and tests need, when missing.
# Needs root (or sudo). On other systems, install the equivalents by hand:
#   Qt 6 (xcb + offscreen): libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
#                           libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
#                           libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
#   Chinese text:           fonts-noto-cjk
#   a virtual screen:       xvfb xauth (only on machines without a display, and for screenshots)
set -euo pipefail
PKGS=(libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0
      libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0
      libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 fonts-noto-cjk xvfb xauth)
command -v dpkg-query >/dev/null 2>&1 || { echo "system-deps: not a Debian-like system; see the list in $0" >&2; exit 0; }
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "system-deps: please install as root: apt-get install -y ${missing[*]}" >&2; exit 1; fi
fi
echo "system-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
