"""Reading with a set: the named profile, made current for the classifier, as a classifier to read with.

A profile learned with another classifier file (the shipped models changed) has its embeddings
computed again from its stored views and is saved so, before it is used (``relearned``): one
model's embeddings are never compared with another's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from vision.models.classifier import TileClassifier
from vision.sets.head import evidence_for
from vision.sets.profile import SetProfile, View, embedded, empty_profile, model_digest, with_views
from vision.sets.store import load_profile, profile_path, save_profile


@dataclass(frozen=True)
class CurrentProfile:
    """A profile whose embeddings are the given classifier's, and whether they had to be remade."""

    profile: SetProfile
    path: Path
    relearned: bool


def current_profile(name: str, classifier: TileClassifier, folder: Path | None = None) -> CurrentProfile:
    """The profile ``name`` with embeddings by ``classifier`` (remade and saved when they were not)."""
    path = profile_path(name, folder)
    profile = load_profile(path)
    digest = model_digest(classifier.model_path)
    if profile.model_sha256 == digest:
        return CurrentProfile(profile, path, False)
    profile = embedded(profile, classifier, digest)
    save_profile(profile, path)
    return CurrentProfile(profile, path, True)


def relearned_note(current: CurrentProfile) -> str:
    return (f"set {current.profile.name!r} was learned with another classifier; its "
            f"{len(current.profile.views)} views were read again with this one")


def set_classifier(name: str, classifier: TileClassifier | None = None,
                   folder: Path | None = None) -> tuple[TileClassifier, CurrentProfile]:
    """A classifier reading with set ``name``'s evidence, and the profile it reads with."""
    classifier = classifier or TileClassifier()
    current = current_profile(name, classifier, folder)
    return classifier.with_set(evidence_for(current.profile, classifier.labels)), current


def add_views(name: str, views: list[View], classifier: TileClassifier, *, replace: bool = False,
              folder: Path | None = None) -> SetProfile:
    """Add ``views`` to set ``name`` (created when new; started afresh with ``replace``) and save it."""
    path = profile_path(name, folder)
    digest = model_digest(classifier.model_path)
    base = empty_profile(name, digest) if replace or not path.exists() else load_profile(path)
    profile = with_views(base, views, classifier, digest)
    save_profile(profile, path)
    return profile
