#!/bin/sh
# Build the frozen Linux app, run its self-test and smoke start, pack the tar.gz, report sizes.
# Usage: packaging/build.sh [--build-dir DIR] [--skip-build] [--no-archive]
set -eu
cd "$(dirname "$0")/.."
# the project venv of the README (.venv), else the python3 on PATH; override with PYTHON=
PYTHON="${PYTHON:-.venv/bin/python}"
[ -x "$PYTHON" ] || PYTHON="$(command -v python3)"
exec nice -n 10 "$PYTHON" packaging/build.py "$@"
