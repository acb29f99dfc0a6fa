"""The set's evidence: learned faces win where their views match, unlearned faces keep the models' reading."""

from __future__ import annotations

import numpy as np

from vision.sets.head import PrototypeEvidence

LABELS = ["1m", "2m", "3m", "4m"]


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, np.float32)
    return vector / np.linalg.norm(vector)


def _evidence() -> PrototypeEvidence:
    """Views of 1m and 2m (columns 0 and 1); 3m and 4m never learned."""
    prototypes = np.stack([_unit(1, 0, 0), _unit(1, 0, 0), _unit(0, 1, 0), _unit(0, 1, 0)])
    return PrototypeEvidence(prototypes, np.array([0, 1]), np.array([0, 2]))


def test_a_tile_like_a_learned_view_reads_as_it_even_against_a_sure_classifier() -> None:
    probabilities = np.array([[0.001, 0.997, 0.001, 0.001]])
    adjusted = _evidence().adjust(probabilities, _unit(1, 0.05, 0)[None])
    assert adjusted.argmax() == 0 and np.isclose(adjusted.sum(), 1.0)


def test_a_tile_like_no_learned_view_keeps_the_classifiers_reading() -> None:
    probabilities = np.array([[0.3, 0.1, 0.55, 0.05]])
    adjusted = _evidence().adjust(probabilities, _unit(0.2, 0.2, 1)[None])
    np.testing.assert_allclose(adjusted, probabilities, rtol=1e-6)  # nothing matches: nothing moves


def test_a_close_match_gains_more_than_a_near_one() -> None:
    probabilities = np.full((2, 4), 0.25)
    adjusted = _evidence().adjust(probabilities, np.stack([_unit(1, 0.1, 0), _unit(1, 0.3, 0)]))
    assert adjusted[0, 0] > adjusted[1, 0] > 0.25 and adjusted[0].argmax() == 0


def test_similarities_take_each_faces_best_view() -> None:
    evidence = _evidence()
    similarities = evidence.similarities(np.stack([_unit(1, 0, 0), _unit(0, 1, 1)]))
    np.testing.assert_allclose(similarities, [[1.0, 0.0], [0.0, np.sqrt(0.5)]], atol=1e-6)
