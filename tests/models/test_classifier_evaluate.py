"""``scripts/evaluate.py classifier``: a candidate is judged beside a baseline on the same held-out crops."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from shared_data import needs_shared_data

from vision.dataset.paths import REPO_ROOT
from vision.models import MODELS_DIR

EVALUATE = REPO_ROOT / "scripts" / "evaluate.py"

needs_crops = needs_shared_data("crops-labelled")


def _evaluate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EVALUATE), "classifier", "--synth", "0", *args],
                          capture_output=True, text=True, timeout=300, check=False)


@needs_crops
def test_a_run_folder_is_compared_with_the_shipped_model_on_the_same_crops(tmp_path: Path) -> None:
    run = tmp_path / "run"
    run.mkdir()
    for name in ("classifier.onnx", "classifier.labels.json"):
        shutil.copy(MODELS_DIR / name, run / name)
    done = _evaluate("--model", str(run), "--baseline", "shipped", "--out", str(tmp_path / "out"), "--json")
    assert done.returncode == 0, done.stderr
    results = json.loads(done.stdout)
    candidate, baseline = results["candidate"], results["baseline"]
    assert candidate["model"] == str(run / "classifier.onnx") and candidate["input"] == "64x48"
    assert Path(baseline["model"]).resolve() == (MODELS_DIR / "classifier.onnx").resolve()
    assert candidate["crops"]["crops"] == baseline["crops"]["crops"] > 100
    assert candidate["crops"]["top1"] == baseline["crops"]["top1"] > 0.9  # the same weights read the same
    assert (tmp_path / "out" / "confusion-crops.png").is_file()
    assert (tmp_path / "out" / "baseline" / "worst-crops.png").is_file()
    table = _evaluate("--model", str(run), "--baseline", "shipped", "--out", str(tmp_path / "out"))
    assert table.returncode == 0, table.stderr
    rows = [line for line in table.stdout.splitlines() if line.startswith("| crops |")]
    assert [row.split(" | ")[1] for row in rows] == ["baseline", "candidate"]


def test_comparing_a_model_with_itself_is_refused() -> None:
    done = _evaluate("--baseline", "shipped")
    assert done.returncode == 2
    assert "baseline is the evaluated model itself" in done.stderr and "Traceback" not in done.stderr
