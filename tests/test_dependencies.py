"""pyproject.toml holds every runtime library to a range, and the installed ones lie in it.

Results (pixels, model outputs, the tests' figures) depend on the versions of numpy, OpenCV,
onnxruntime and Pillow: a dependency with no upper bound lets a fresh install pick a release
nobody tested.
"""

from __future__ import annotations

import tomllib
from importlib.metadata import version
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _runtime() -> list[Requirement]:
    project = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]
    return [Requirement(text) for text in project["dependencies"]]


def test_every_runtime_dependency_has_a_lower_and_an_upper_bound() -> None:
    for requirement in _runtime():
        operators = {spec.operator for spec in requirement.specifier}
        assert operators & {">=", "==", "~="} and operators & {"<", "==", "~="}, str(requirement)


def test_heic_photos_are_read_with_pillow_heif() -> None:
    assert "pillow-heif" in {requirement.name for requirement in _runtime()}


def test_the_installed_libraries_are_those_pyproject_asks_for() -> None:
    for requirement in _runtime():
        installed = version(requirement.name)
        assert requirement.specifier.contains(installed, prereleases=True), (requirement.name, installed)
