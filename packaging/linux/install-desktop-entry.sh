#!/bin/sh
# Add MemoryOS to the desktop's application menu for this user (run from the unpacked folder).
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
apps="${XDG_DATA_HOME:-$HOME/.local/share}/applications"
icons="${XDG_DATA_HOME:-$HOME/.local/share}/icons/hicolor/scalable/apps"
mkdir -p "$apps" "$icons"
cp "$here/memoryos.svg" "$icons/memoryos.svg"
sed "s|^Exec=.*|Exec=\"$here/memoryos/memoryos\"|" "$here/memoryos.desktop" > "$apps/memoryos.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps" || true
echo "MemoryOS added to the application menu ($apps/memoryos.desktop)."
