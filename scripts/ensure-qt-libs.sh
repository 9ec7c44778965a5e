#!/usr/bin/env bash
# Install the system libraries PySide6 needs, when they are missing (Debian/Ubuntu).
#   bash scripts/ensure-qt-libs.sh          libraries for running offscreen (tests, CI, scripts)
#   bash scripts/ensure-qt-libs.sh --x11    and those of Qt's X11 plugin, for the window on a display
set -euo pipefail
libs=(libGL.so.1 libEGL.so.1 libxkbcommon.so.0 libfontconfig.so.1 libdbus-1.so.3 libglib-2.0.so.0)
packages=(libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core)
if [ "${1:-}" = "--x11" ]; then
  libs+=(libxcb-cursor.so.0 libxcb-icccm.so.4 libxcb-image.so.0 libxcb-keysyms.so.1 libxcb-randr.so.0
         libxcb-render-util.so.0 libxcb-shape.so.0 libxcb-xfixes.so.0 libxcb-xkb.so.1 libxkbcommon-x11.so.0
         libX11-xcb.so.1)
  packages+=(libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 libxcb-render-util0
             libxcb-shape0 libxcb-xfixes0 libxcb-xkb1 libxkbcommon-x11-0 libx11-xcb1)
fi
missing=()
for lib in "${libs[@]}"; do
  ldconfig -p | grep -q "$lib" || missing+=("$lib")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing system libraries for Qt: ${missing[*]}"
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${packages[@]}" >/dev/null
else
  echo "please install the OpenGL, EGL, xkbcommon, fontconfig, dbus and glib runtime libraries" \
       "(and, for a display, Qt's xcb libraries)" >&2
  exit 1
fi
