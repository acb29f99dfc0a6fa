"""``scripts/ensure_chromium.sh`` (run by ``scripts/test.sh``): as root it installs Chromium with
apt-get, and says so on stderr before it does; otherwise it only says the browser tests will skip.

The commands it calls (``id``, ``apt-get``) are stand-ins on a PATH of their own, so nothing is
installed: the stand-in apt-get writes down how it was called.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "ensure_chromium.sh"


def _run(tmp_path: Path, uid: int) -> tuple[subprocess.CompletedProcess[str], str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "apt-calls.txt"
    (bin_dir / "id").write_text(f"#!/bin/sh\necho {uid}\n")
    (bin_dir / "apt-get").write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\n')
    for stub in bin_dir.iterdir():
        stub.chmod(0o755)
    done = subprocess.run(["/bin/bash", str(SCRIPT)], env={"PATH": str(bin_dir)}, capture_output=True,
                          text=True, timeout=30, check=False)
    return done, calls.read_text() if calls.exists() else ""


def test_as_root_it_says_it_installs_chromium_before_apt_get_runs(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, 0)
    assert done.returncode == 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "installing" in lines[0] and "chromium" in lines[0] and "apt-get" in lines[0]
    assert calls.splitlines() == ["update -qq", "install -y -qq chromium"]


def test_as_another_user_nothing_is_installed(tmp_path: Path) -> None:
    done, calls = _run(tmp_path, 1000)
    assert done.returncode == 0 and calls == ""
    assert "browser tests will be skipped" in done.stderr
