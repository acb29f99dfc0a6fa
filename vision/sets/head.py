"""The set's evidence about a tile: how close its embedding comes to each face's learned views.

For every face the profile holds, ``s`` is the tile's highest cosine similarity to a view of that
face (either way up). For those faces the classifier's calibrated probability ``p`` becomes
``p ** CLASSIFIER_WEIGHT * exp(KAPPA * (s - NEUTRAL))``; faces the profile lacks keep ``p``; then
the row is renormalised. A face the set's views resemble more than :data:`NEUTRAL` gains, one
they do not resemble loses, and a tile of a face never learned (its similarities to all learned
faces low) falls back to the shipped models' reading, since the learned faces all lose and the
others keep their probability. The classifier's weight is lowered where the set has views, as
the set's own views know its style better than a model that never saw it: in a mirrored art
style (the tests' renders) the shipped models read a 3p as 2p at p > 0.99, while its 3p view is
only 0.05 closer than its 2p view.

The constants were chosen on the held-out sets of ``scripts/evaluate.py sets`` (2026-12-02) and
on rendered hands of the mirrored style: over ``KAPPA`` 100-300, ``NEUTRAL`` 0.85-0.92 and weight
0.25-0.5, top-1 on the real sets learned from one view per face stays 99.9% (93.3% without), and
from one hand photo 98.9%; what moves is the ``fallback`` check (each crop of a validation crop
set read with a profile of the set's other faces only), where a ``NEUTRAL`` of 0.85 lets a set's
other flowers take a flower it lacks (set-297: 18 points worse) and 0.9 reads every crop as
without the set; at 0.9 a weight of 0.4 reads all tiles of three of four mirrored hands (one crop
cut across two tiles stays wrong), 0.5 one tile fewer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.errors import InputError
from vision.sets.profile import SetProfile

KAPPA = 100.0
NEUTRAL = 0.9
CLASSIFIER_WEIGHT = 0.4
#: Probabilities are floored here before the logarithm (a face the classifier rules out entirely
#: can still be won by a near-identical view).
PROBABILITY_FLOOR = 1e-9


@dataclass(frozen=True)
class PrototypeEvidence:
    """Learned views as prototypes, in the columns of one classifier's labels.

    ``prototypes``: (P, D) unit embeddings; ``columns``: the label column of each prototype;
    ``faces``: the distinct columns the profile holds.
    """

    prototypes: np.ndarray
    columns: np.ndarray
    faces: np.ndarray
    kappa: float = KAPPA
    neutral: float = NEUTRAL
    classifier_weight: float = CLASSIFIER_WEIGHT

    def similarities(self, embeddings: np.ndarray) -> np.ndarray:
        """(n, len(faces)): each tile's best cosine similarity to a view of each learned face."""
        scores = embeddings.astype(np.float32) @ self.prototypes.T
        best = np.full((len(embeddings), len(self.faces)), -1.0, dtype=np.float32)
        slot = np.searchsorted(self.faces, self.columns)
        np.maximum.at(best.T, slot, scores.T)
        return best

    def adjust(self, probabilities: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """The classifier's probabilities with the set's evidence combined (rows sum to 1)."""
        if embeddings.shape[1] != self.prototypes.shape[1]:
            raise InputError(f"the set was learned with {self.prototypes.shape[1]}-value embeddings, "
                             f"the classifier gives {embeddings.shape[1]}")
        log_p = np.log(np.maximum(probabilities, PROBABILITY_FLOOR))
        evidence = self.kappa * (self.similarities(embeddings) - self.neutral)
        log_p[:, self.faces] = self.classifier_weight * log_p[:, self.faces] + evidence
        log_p -= log_p.max(axis=1, keepdims=True)
        combined = np.exp(log_p)
        return combined / combined.sum(axis=1, keepdims=True)


def evidence_for(profile: SetProfile, labels: Sequence[str]) -> PrototypeEvidence:
    """The profile's views as prototypes for a classifier with ``labels``; its embeddings must be that
    classifier's (``vision.sets.profile.embedded``)."""
    if not profile.views:
        raise InputError(f"set {profile.name!r} has learned no tiles yet")
    column = {code: index for index, code in enumerate(labels)}
    missing = sorted({code for code in profile.codes if code not in column})
    if missing:
        raise InputError(f"set {profile.name!r} holds {', '.join(missing)}, which the classifier does "
                         "not read")
    columns = np.repeat([column[code] for code in profile.codes], 2)
    prototypes = profile.embeddings.reshape(-1, profile.embeddings.shape[2])
    return PrototypeEvidence(prototypes.astype(np.float32), columns, np.unique(columns))
