"""Where set profiles live and how one is written and read: one zip file per set, written atomically.

The folder is the user's data folder (``platformdirs``: ``$XDG_DATA_HOME/taicam/sets`` on Linux),
or ``$TAICAM_SETS`` when set. A profile file holds ``profile.json`` (format tag, name, model hash,
each view's code and source), ``embeddings.npy`` (float32, views x 2 x D) and ``views/NNNNN.jpg``.
Reading checks all of it before anything is used: a corrupt, truncated or foreign file is refused
with one line naming it (:class:`ProfileError`), never half-read.
"""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np

from scoring.errors import InputError
from scoring.tiles import VISION_CODES
from vision.dataset.files import atomic_write_bytes
from vision.sets.profile import VIEW_SIZE, SetProfile, View, check_name, decode_view

FORMAT = "taicam-set-profile"
VERSION = 1
SUFFIX = ".taiset"
#: A profile file is refused unpacked larger than this (a few MB is what one holds).
MAX_UNPACKED_BYTES = 64 << 20


class ProfileError(InputError):
    """A profile file that is not a whole taicam set profile."""


def sets_dir() -> Path:
    """The folder profiles are kept in (``$TAICAM_SETS``, else the user's data folder)."""
    override = os.environ.get("TAICAM_SETS")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_data_dir("taicam", appauthor=False)) / "sets"


def profile_path(name: str, folder: Path | None = None) -> Path:
    return (folder or sets_dir()) / f"{check_name(name)}{SUFFIX}"


def profile_names(folder: Path | None = None) -> list[str]:
    folder = folder or sets_dir()
    if not folder.is_dir():
        return []
    return sorted(path.name[:-len(SUFFIX)] for path in folder.glob(f"*{SUFFIX}") if path.is_file())


def profile_bytes(profile: SetProfile) -> bytes:
    """The profile file's contents."""
    meta = {"format": FORMAT, "version": VERSION, "name": profile.name, "model_sha256": profile.model_sha256,
            "view_size": list(VIEW_SIZE),
            "views": [{"code": view.code, "source": view.source} for view in profile.views]}
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("profile.json", json.dumps(meta, indent=1, ensure_ascii=False))
        embeddings = io.BytesIO()
        np.save(embeddings, np.ascontiguousarray(profile.embeddings, dtype=np.float32), allow_pickle=False)
        archive.writestr("embeddings.npy", embeddings.getvalue())
        for index, view in enumerate(profile.views):
            archive.writestr(f"views/{index:05d}.jpg", view.jpeg, zipfile.ZIP_STORED)
    return buffer.getvalue()


def save_profile(profile: SetProfile, path: Path) -> None:
    """Write ``profile`` to ``path``; the old file is replaced only once the new one is whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(path, profile_bytes(profile))


def load_profile(path: Path) -> SetProfile:
    """The profile in ``path``; anything wrong with the file is one :class:`ProfileError` line."""
    if not path.is_file():
        raise ProfileError(f"no set profile at {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            return _read(archive)
    except ProfileError as error:
        raise ProfileError(f"{path} is not a usable set profile: {error}") from None
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, KeyError) as error:
        raise ProfileError(f"{path} is not a usable set profile: {type(error).__name__}: {error}") from None


def _read(archive: zipfile.ZipFile) -> SetProfile:
    members = archive.infolist()
    if sum(member.file_size for member in members) > MAX_UNPACKED_BYTES:
        raise ProfileError(f"it unpacks to more than {MAX_UNPACKED_BYTES >> 20} MB")
    names = {member.filename for member in members}
    if "profile.json" not in names or "embeddings.npy" not in names:
        raise ProfileError("no profile.json and embeddings.npy in it (not a taicam set profile)")
    meta = json.loads(archive.read("profile.json").decode("utf-8"))
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ProfileError("its profile.json is not a taicam set profile")
    if meta.get("version") != VERSION:
        raise ProfileError(f"format version {meta.get('version')!r}, this taicam reads {VERSION}")
    if meta.get("view_size") != list(VIEW_SIZE):
        raise ProfileError(f"its views are {meta.get('view_size')!r}, expected {list(VIEW_SIZE)}")
    name, digest, records = meta.get("name"), meta.get("model_sha256"), meta.get("views")
    if not isinstance(name, str) or not isinstance(digest, str) or not isinstance(records, list):
        raise ProfileError("its profile.json lacks the name, model hash or views")
    check_name(name)
    embeddings = np.load(io.BytesIO(archive.read("embeddings.npy")), allow_pickle=False)
    if embeddings.dtype != np.float32 or embeddings.ndim != 3 or embeddings.shape[:2] != (len(records), 2):
        raise ProfileError(f"its embeddings have shape {embeddings.shape}, expected ({len(records)}, 2, D)")
    if not np.isfinite(embeddings).all():
        raise ProfileError("its embeddings are not all finite numbers")
    views = []
    for index, record in enumerate(records):
        code = record.get("code") if isinstance(record, dict) else None
        source = record.get("source", "") if isinstance(record, dict) else None
        if code not in VISION_CODES or code == "back" or not isinstance(source, str):
            raise ProfileError(f"view {index} has no tile code")
        member = f"views/{index:05d}.jpg"
        if member not in names:
            raise ProfileError(f"view {index}'s image is missing")
        data = archive.read(member)
        views.append(View(code, decode_view(data), source, data))
    return SetProfile(name, tuple(views), digest, embeddings)
