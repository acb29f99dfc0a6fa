#!/usr/bin/env bash
# Install taicam with its test and training extras into .venv, then lint and run every test.
# The README's second command and CI's .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q -e ".[test,train]"
# The labelling tool's browser tests drive Debian's Chromium (nothing is downloaded at run time).
if ! command -v chromium >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq && apt-get install -y -qq chromium >/dev/null
    else
        echo "note: chromium is not installed; the browser tests will be skipped" >&2
    fi
fi
ruff check .
python -m pytest -q "$@"
