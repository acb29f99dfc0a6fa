"""The set's evidence about a tile: how close its embedding comes to each face's learned views.

For every face the profile holds, ``s`` is the tile's highest cosine similarity to a view of that
face (either way up). Where ``s`` passes :data:`NEUTRAL` the face gains ``KAPPA * (s - NEUTRAL)``
in log-probability and the classifier's say in it falls to :data:`CLASSIFIER_WEIGHT` (over the
first :data:`RAMP` of similarity, so nothing jumps); a face whose views the tile does not match,
and every face the profile lacks, keeps the classifier's calibrated probability; then the row is
renormalised. So a tile of a face never learned, or one learned from a poor view, reads as the
shipped models read it, and only a close match overrules them: in a mirrored art style (the
tests' renders) the shipped models read a 3p as 2p at p > 0.99, while its 3p view is only 0.05
closer than its 2p view.

The constants were chosen on ``scripts/evaluate.py sets`` (2026-12-02) and on rendered hands of
the mirrored style. Penalising faces whose views do not match (the first design) read the
table-photo set worse (95.2% -> 89.9% learned from one view per face: a view cut from a
sideways, half-hidden tile matched its own face at 0.6, below other faces); with gains only, no
set reads worse in any check. A ``NEUTRAL`` of 0.85 lets a set's other flowers take a flower the
profile lacks (``fallback``: set-297 9 points worse), 0.9 does not; ``KAPPA`` 200 and weight 0.4
read all tiles of three of four mirrored hands (one crop cut across two tiles stays wrong).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scoring.errors import InputError
from vision.sets.profile import SetProfile

KAPPA = 200.0
NEUTRAL = 0.9
CLASSIFIER_WEIGHT = 0.4
#: The classifier's weight falls from 1 to :data:`CLASSIFIER_WEIGHT` as ``s`` goes from
#: :data:`NEUTRAL` to ``NEUTRAL + RAMP``.
RAMP = 0.05
#: Probabilities are floored here before the logarithm (a face the classifier rules out entirely
#: can still be won by a near-identical view).
PROBABILITY_FLOOR = 1e-9


@dataclass(frozen=True)
class PrototypeEvidence:
    """Learned views as prototypes, in the columns of one classifier's labels.

    ``prototypes``: (P, D) unit embeddings grouped by face; ``faces``: the label column of each
    face the profile holds, ascending; ``starts``: where each face's prototypes begin.
    """

    prototypes: np.ndarray
    faces: np.ndarray
    starts: np.ndarray
    kappa: float = KAPPA
    neutral: float = NEUTRAL
    classifier_weight: float = CLASSIFIER_WEIGHT
    ramp: float = RAMP

    def similarities(self, embeddings: np.ndarray) -> np.ndarray:
        """(n, len(faces)): each tile's best cosine similarity to a view of each learned face.

        ``einsum``, not a BLAS product: for a few dozen tiles BLAS threads waking beside
        onnxruntime's took 22 ms a call, the plain loop well under one."""
        scores = np.einsum("nd,pd->np", embeddings.astype(np.float32), self.prototypes)
        return np.maximum.reduceat(scores, self.starts, axis=1)

    def adjust(self, probabilities: np.ndarray, embeddings: np.ndarray) -> np.ndarray:
        """The classifier's probabilities with the set's evidence combined (rows sum to 1)."""
        if embeddings.shape[1] != self.prototypes.shape[1]:
            raise InputError(f"the set was learned with {self.prototypes.shape[1]}-value embeddings, "
                             f"the classifier gives {embeddings.shape[1]}")
        log_p = np.log(np.maximum(probabilities, PROBABILITY_FLOOR))
        above = np.maximum(self.similarities(embeddings) - self.neutral, 0.0)
        weight = 1.0 - (1.0 - self.classifier_weight) * np.minimum(above / self.ramp, 1.0)
        log_p[:, self.faces] = weight * log_p[:, self.faces] + self.kappa * above
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
    order = np.argsort(columns, kind="stable")
    faces, starts = np.unique(columns[order], return_index=True)
    return PrototypeEvidence(np.ascontiguousarray(prototypes[order], dtype=np.float32), faces, starts)
