#!/bin/sh
# Build MemoryOS.app and a compressed .dmg on macOS. NOT TESTED HERE: see packaging/README.md.
# Usage (on a Mac, from the repository root, with the venv active): packaging/macos/make_dmg.sh
set -eu
cd "$(dirname "$0")/../.."
BUILD_DIR="${MEMORYOS_BUILD_DIR:-build/pyi}"
VERSION="$(python -c 'import sys; sys.path.insert(0, "packaging"); import manifest; print(manifest.version())')"
python packaging/build.py --build-dir "$BUILD_DIR" --no-archive
APP="$BUILD_DIR/dist/MemoryOS.app"
"$APP/Contents/MacOS/memoryos" --self-test
# ad-hoc signature so Gatekeeper lets the person open it with right-click > Open;
# a release needs `codesign --deep --options runtime -s "Developer ID Application: ..."`
# and `xcrun notarytool submit ... --wait` followed by `xcrun stapler staple "$APP"`
codesign --force --deep --sign - "$APP"
STAGE="$(mktemp -d)"
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
hdiutil create -volname "MemoryOS $VERSION" -srcfolder "$STAGE" -ov -format UDZO \
    "$BUILD_DIR/memoryos-$VERSION-macos-$(uname -m).dmg"
rm -rf "$STAGE"
