"""Profile files: written whole, read whole or refused in one line; kept in the user's data folder."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from scoring.errors import InputError
from vision.sets.profile import VIEW_SIZE, SetProfile, as_view, check_name
from vision.sets.store import (
    ProfileError,
    load_profile,
    profile_bytes,
    profile_names,
    profile_path,
    save_profile,
    sets_dir,
)


def _profile(name: str = "mine", views: int = 3) -> SetProfile:
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 255, (150, 110, 3), dtype=np.uint8) for _ in range(views)]
    embeddings = rng.normal(size=(views, 2, 8)).astype(np.float32)
    embeddings /= np.linalg.norm(embeddings, axis=2, keepdims=True)
    codes = ["1m", "7z", "3f"][:views]
    views = tuple(as_view(image, code, "a.jpg") for image, code in zip(images, codes, strict=True))
    return SetProfile(name, views, "ab" * 32, embeddings)


def test_a_profile_reads_back_as_written(tmp_path: Path) -> None:
    profile = _profile()
    save_profile(profile, tmp_path / "mine.taiset")
    back = load_profile(tmp_path / "mine.taiset")
    assert back.name == "mine" and back.codes == profile.codes and back.model_sha256 == profile.model_sha256
    np.testing.assert_array_equal(back.embeddings, profile.embeddings)
    for a, b in zip(back.views, profile.views, strict=True):
        assert a.image.shape[:2] == VIEW_SIZE
        np.testing.assert_array_equal(a.image, b.image)  # the view is kept as stored


def _zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _members(profile: SetProfile) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(profile_bytes(profile))) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _broken_files() -> dict[str, bytes]:
    whole = profile_bytes(_profile())
    members = _members(_profile())
    meta = json.loads(members["profile.json"])
    foreign = dict(members, **{"profile.json": json.dumps({**meta, "format": "other"}).encode()})
    short = dict(members, **{"profile.json": json.dumps({**meta, "views": meta["views"][:2]}).encode()})
    no_view = {name: data for name, data in members.items() if name != "views/00001.jpg"}
    bad_code = dict(members, **{"profile.json": json.dumps(
        {**meta, "views": [{"code": "9z", "source": ""}] + meta["views"][1:]}).encode()})
    nan = io.BytesIO()
    np.save(nan, np.full((3, 2, 8), np.nan, np.float32))
    return {"truncated": whole[: len(whole) // 2], "not a zip": b"hello", "foreign": _zip(foreign),
            "other zip": _zip({"readme.txt": b"hi"}), "views miscounted": _zip(short),
            "a view missing": _zip(no_view), "a bad code": _zip(bad_code),
            "nan embeddings": _zip(dict(members, **{"embeddings.npy": nan.getvalue()})),
            "not json": _zip(dict(members, **{"profile.json": b"{"}))}


@pytest.mark.parametrize("case", sorted(_broken_files()))
def test_a_corrupt_or_foreign_file_is_refused_in_one_line(tmp_path: Path, case: str) -> None:
    path = tmp_path / "bad.taiset"
    path.write_bytes(_broken_files()[case])
    with pytest.raises(ProfileError) as raised:
        load_profile(path)
    message = str(raised.value)
    assert str(path) in message and "\n" not in message


def test_the_folder_follows_xdg_data_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TAICAM_SETS", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert sets_dir() == tmp_path / "data" / "taicam" / "sets"
    save_profile(_profile("b"), profile_path("b"))
    save_profile(_profile("a"), profile_path("a"))
    assert profile_names() == ["a", "b"]
    assert not list(sets_dir().glob(".*"))  # no temporary file left behind


@pytest.mark.parametrize("name", ["", "../x", "a/b", "-x", "x" * 65, "a b"])
def test_names_that_are_not_plain_file_names_are_refused(name: str) -> None:
    with pytest.raises(InputError, match="set name"):
        check_name(name)
