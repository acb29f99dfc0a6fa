#!/usr/bin/env bash
# Make Debian's Chromium available for the labelling tool's browser tests (scripts/test.sh runs this).
# As root (CI), install it with apt-get, saying so first on stderr; otherwise say the tests that need
# it will be skipped. Never fails: without Chromium those tests skip.
set -uo pipefail
if command -v chromium >/dev/null 2>&1; then
    exit 0
fi
if [ "$(id -u)" = 0 ]; then
    echo "note: installing Debian's chromium with apt-get for the browser tests (running as root)" >&2
    { apt-get update -qq && apt-get install -y -qq chromium; } >/dev/null 2>&1 \
        || echo "note: could not install chromium; the browser tests will be skipped" >&2
else
    echo "note: chromium is not installed; the browser tests will be skipped" >&2
fi
