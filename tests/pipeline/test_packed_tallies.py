"""Packed face counts (``vision.decode.packed_tallies``) and the decoder's search that carries them: the
packed tallies must say exactly what counting the tiles one by one says."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hand_scenes import lay_out

from scoring.tiles import FLOWER_CODES, SET_TILE_CODES
from vision.decode.options import search_variables
from vision.decode.packed_tallies import Limit, pack, unpack
from vision.decode.search import best_first
from vision.layout import layout_tiles
from vision.types import GroupRole


def test_pack_and_unpack_are_inverse():
    rng = np.random.default_rng(0)
    counts = [int(c) for c in rng.integers(0, 40, size=34)]
    packed = pack(itertools.chain.from_iterable([face] * c for face, c in enumerate(counts)))
    assert unpack(packed, 34) == counts
    assert pack([3], weight=4) == pack([3, 3, 3, 3])


@pytest.mark.parametrize("most", [0, 1, 4, 31])
def test_a_limit_is_exceeded_by_exactly_the_counts_above_it(most):
    limit = Limit(most, 34)
    for face in (0, 17, 33):
        for count in range(0, 41):
            others = pack([f for f in range(34) if f != face], weight=min(most, count))
            assert limit.exceeded(others + pack([face], weight=count)) == (count > most)


def test_a_limit_that_does_not_fit_is_refused():
    with pytest.raises(ValueError):
        Limit(32, 34)


def _recount(variables, choice):
    """The tallies counted tile by tile, as the decoder did before they were packed."""
    counts, standing, flowers = [0] * 34, [0] * 34, [0] * 8
    for variable, k in zip(variables, choice, strict=True):
        option = variable.options[k]
        if variable.role is GroupRole.CONCEALED:
            face = SET_TILE_CODES.index(option.codes[0][1])
            counts[face] += 1
            standing[face] += 1
        elif variable.role is GroupRole.FLOWERS:
            flowers[FLOWER_CODES.index(option.codes[0][1])] += 1
        elif variable.role is GroupRole.CONCEALED_KONG:
            counts[SET_TILE_CODES.index(option.face or option.codes[0][1])] += 4
        else:
            for _, code in option.codes:
                counts[SET_TILE_CODES.index(code)] += 1
    return counts, standing, flowers


def test_the_search_carries_the_tallies_of_every_reading_it_yields():
    """Unsure readings (every tile at 0.55) give many options per tile, sets and a concealed kong."""
    scene = lay_out(["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"],
                    [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)], ["1f", "6f"], "3m")
    readings = scene.readings(angle_degrees=20, confidence=0.55)
    variables = search_variables(readings, layout_tiles(readings))
    assert sum(len(v.options) > 1 for v in variables) >= 10
    log_ps = []
    for log_p, choice, (counts, standing, flowers) in itertools.islice(best_first(variables), 3000):
        assert (unpack(counts, 34), unpack(standing, 34), unpack(flowers, 8)) == _recount(variables, choice)
        log_ps.append(log_p)
    assert log_ps == sorted(log_ps, reverse=True)
