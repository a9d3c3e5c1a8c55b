#!/usr/bin/env bash
# Install the Debian/Ubuntu system libraries Shoebox's Qt window and tests need, when missing.
# Needs root (or sudo). On other systems, install the equivalents by hand:
#   Qt 6 (xcb + offscreen): libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
#                           libglib2.0-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
#                           libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1
#   Chinese text:           fonts-noto-cjk
#   a virtual screen:       xvfb xauth (only on machines without a display, and for screenshots)
# When another installation holds the package manager's lock (unattended-upgrades, a second terminal),
# this waits for it (up to SHOEBOX_APT_WAIT seconds, default 900) instead of failing, and says so.
set -euo pipefail
PKGS=(libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3 libglib2.0-0
      libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0
      libxcb-shape0 libxcb-xinerama0 libxcb-xkb1 fonts-noto-cjk xvfb xauth)
WAIT=${SHOEBOX_APT_WAIT:-900}
RETRY=${SHOEBOX_APT_RETRY:-10}   # seconds between two looks at a lock held by another installation
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
export DEBIAN_FRONTEND=noninteractive
# apt >= 1.9.11 waits for the dpkg lock itself (DPkg::Lock::Timeout); the loop below also covers the
# package lists' lock of `apt-get update` and older apt, retrying while another process holds a lock.
APT=($SUDO apt-get -o DPkg::Lock::Timeout="$WAIT" -o Dpkg::Use-Pty=0)
APT_OUT=$(mktemp)
trap 'rm -f "$APT_OUT"' EXIT
apt_retry() {
  local start=$SECONDS out status
  while :; do
    set +e
    # shown on this script's own stderr (never reopened: a redirected log keeps every call) and kept
    "${APT[@]}" "$@" 2>&1 | tee "$APT_OUT" >&2
    status=${PIPESTATUS[0]}
    out=$(cat "$APT_OUT")
    set -e
    [ "$status" -eq 0 ] && return 0
    if grep -qiE "could not get lock|unable to lock|is another process using it" <<<"$out" \
        && [ $((SECONDS - start)) -lt "$WAIT" ]; then
      echo "system-deps: another installation is running; waiting for it to finish ($((SECONDS - start)) s so far)" >&2
      sleep "$RETRY"
      continue
    fi
    return "$status"
  done
}
echo "system-deps: installing ${#missing[@]} packages: ${missing[*]}" >&2
echo "system-deps: this downloads about 100-200 MB the first time and can take several minutes" >&2
apt_retry update -q
# no -q here: apt names each package as it downloads (with its size) and dpkg each one it unpacks and
# sets up, so a long first install shows how far it has got
apt_retry install -y --no-install-recommends "${missing[@]}"
echo "system-deps: done" >&2
