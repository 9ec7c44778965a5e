#!/usr/bin/env bash
# Install the system libraries PySide6 needs to run offscreen, when they are missing (Debian/Ubuntu).
set -euo pipefail
missing=()
for lib in libGL.so.1 libEGL.so.1 libxkbcommon.so.0 libfontconfig.so.1 libdbus-1.so.3 libglib-2.0.so.0; do
  ldconfig -p | grep -q "$lib" || missing+=("$lib")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "installing system libraries for Qt: ${missing[*]}"
if command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq libgl1 libegl1 libxkbcommon0 libfontconfig1 libdbus-1-3 libglib2.0-0 fonts-dejavu-core >/dev/null
else
  echo "please install OpenGL, EGL, xkbcommon, fontconfig, dbus and glib runtime libraries" >&2
  exit 1
fi
