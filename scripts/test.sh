#!/usr/bin/env bash
# Install taicam with its test and training extras into .venv, then run every test and the linter.
# The README's second command and CI's .ci/run both run exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
# shellcheck disable=SC1091
. .venv/bin/activate
install_log=.venv/install.log
if ! { python -m pip install --upgrade pip && python -m pip install -e ".[test,train]"; } >"$install_log" 2>&1; then
    cat "$install_log" >&2
    echo "install failed (log above)" >&2
    exit 1
fi
# The labelling tool's browser tests drive Debian's Chromium (nothing is downloaded at run time).
bash scripts/ensure_chromium.sh
status=0
python -m pytest -q "$@" || status=$?
ruff check . || status=$?
exit "$status"
