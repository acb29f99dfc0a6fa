"""``taicam serve`` from the command line: what it prints on the loopback and with ``--lan`` (the
LAN URL with its token, a warning, the QR code), and one-line errors for bad options. No traffic is
sent to the server: only its start-up lines are read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def first_lines(args: list[str], count: int) -> list[str]:
    """The first ``count`` lines ``taicam ARGS`` prints; the server is then stopped."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen([sys.executable, "-m", "vision.cli", *args], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=env, cwd=ROOT)
    try:
        assert process.stdout is not None
        return [process.stdout.readline().rstrip("\n") for _ in range(count)]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_serve_on_the_loopback_prints_the_loopback_url(tmp_path: Path) -> None:
    lines = first_lines(["serve", "--port", "0", "--db", str(tmp_path / "g.sqlite3")], 2)
    assert lines[0] == f"taicam serve: games in {tmp_path / 'g.sqlite3'}; photos in {tmp_path / 'photos'}"
    assert lines[1].startswith("taicam serve: serving http://127.0.0.1:") and "token" not in lines[1]


def test_serve_lan_prints_the_lan_url_with_a_token_a_warning_and_a_qr_code(tmp_path: Path) -> None:
    lines = first_lines(["serve", "--lan", "--port", "0", "--db", str(tmp_path / "g.sqlite3")], 8)
    url = lines[1].split()[3]
    assert url.startswith("http://") and "/?token=" in url and len(url.split("token=")[1]) >= 32
    assert "WARNING" in lines[2] and "scan this" in lines[3]
    assert all(set(line) <= set("█▀▄ ") and len(line) > 20 for line in lines[4:8])


def test_bad_options_are_one_line_errors(tmp_path: Path) -> None:
    bad_db = tmp_path / "notes.db"
    bad_db.write_text("not a database " * 100)
    for args, said in [(["--rules", "nosuch"], "unknown rule set"),
                       (["--table", str(tmp_path / "none.toml")], "does not exist"),
                       (["--db", str(bad_db)], "not a taicam game database"),
                       (["--port", "70000"], "--port must be 0..65535")]:
        done = subprocess.run([sys.executable, "-m", "vision.cli", "serve", *args], capture_output=True,
                              text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT, timeout=60)
        assert done.returncode == 2 and said in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_label_off_the_loopback_prints_the_real_address_and_a_token(tmp_path: Path) -> None:
    (tmp_path / "photos").mkdir()
    lines = first_lines(["label", str(tmp_path / "photos"), "--host", "0.0.0.0", "--port", "0",
                         "--no-model"], 4)
    serving = next(line for line in lines if "serving" in line)
    assert "/?token=" in serving and "http://0.0.0.0" not in serving
    assert any("WARNING" in line for line in lines)
