"""A decompression bomb (a 30000x30000 PNG of 2.6 MB) is refused from its header by every command
that opens images: photo, live, label, data, and the renderer's and trainer's inputs.

Before, the photo loader read the EXIF first, which made Pillow decode the whole PNG (10-18 s and
3.5 GB) before the size check. Each opener runs here in a fresh interpreter, so its peak memory
(``ru_maxrss``) is its own.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from bad_images import write_huge_png

REPO = Path(__file__).resolve().parents[2]

#: name -> the call that opens ``path`` (a Path to the bomb; ``folder``: a YOLO folder holding it).
OPENERS = {
    "photo": "load_image(path)",
    "photo (its source)": "PhotoSource(path)",
    "label (a view of it)": "LabelWorkspace(path.parent).image_size(0)",
    "label (an upload)": "LabelWorkspace(upload_root).add_upload('huge.png', path.read_bytes())",
    "live": "parse_source(str(path))",
    "data (YOLO folder)": "read_yolo(folder)",
    "data (preview)": "contact_sheet([ManifestRecord(image=str(path), width=30000, height=30000)], path)",
    "synth and training inputs": "read_bgr(path)",
}

PROBE = """
import json, resource, sys, time
from pathlib import Path
from scoring.errors import InputError
from vision.dataset.manifest import ManifestRecord
from vision.dataset.preview import contact_sheet
from vision.dataset.yolo import read_yolo
from vision.imageio import PhotoSource, load_image, read_bgr
from vision.label.workspace import LabelWorkspace
from vision.live.sources import parse_source

path, folder, upload_root = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
openers = json.loads(sys.argv[4])
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
results = {}
for name, call in openers.items():
    started = time.perf_counter()
    try:
        eval(call)
        message = None
    except InputError as error:
        message = str(error)
    seconds = time.perf_counter() - started
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    results[name] = {"message": message, "seconds": seconds, "grown_mb": grown_mb}
print(json.dumps(results))
"""


def test_every_opener_refuses_the_bomb_from_its_header_in_under_a_second_and_100_mb(tmp_path: Path) -> None:
    folder = tmp_path / "yolo"
    (folder / "images").mkdir(parents=True)
    (folder / "labels").mkdir()
    path = folder / "images" / "huge.png"
    write_huge_png(path)
    (folder / "labels" / "huge.txt").write_text("")
    upload_root = tmp_path / "uploads-here"
    upload_root.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(path), str(folder), str(upload_root), json.dumps(OPENERS)],
        cwd=REPO, env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    results = json.loads(done.stdout)
    for name, result in results.items():
        assert result["message"] is not None, f"{name}: the bomb was not refused"
        # Photos are held to 100 MP; an upload to the labelling page to its own, smaller limit.
        limit = "the limit is 60.0 MP" if name == "label (an upload)" else "the limit is 100 MP"
        assert "huge.png" in result["message"] and limit in result["message"], name
        assert result["seconds"] < 1.0, (name, result)
        assert result["grown_mb"] < 100, (name, result)
