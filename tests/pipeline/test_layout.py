"""Layout on readings made from known hands: groups, roles and the winning tile, under any rotation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hand_scenes import LONG, SHORT, Scene, SceneTile, lay_out

from scoring.errors import InputError
from scoring.tiles import sorted_codes
from vision.layout import estimate_row_direction, layout_candidates, layout_tiles
from vision.pipeline import read_readings
from vision.repairs.outline_views import turned_quad
from vision.types import GroupRole, TileReading

CONCEALED = ["1m", "2m", "4p", "4p", "4p", "6s", "7s", "8s", "2z", "2z"]
MELDS = [("pung", ["5z", "5z", "5z"], False), ("kong", ["9p"] * 4, True)]


def _roles(layout, scene):
    """{role: sorted list of the codes of the scene tiles in groups of that role}"""
    out: dict[str, list[list[str]]] = {}
    for group in layout.groups:
        out.setdefault(group.role.value, []).append(sorted(scene.tiles[i].code for i in group.tile_indices))
    return out


@pytest.mark.parametrize("angle", [0, 17, 45, 90, 133, 180, 251, -30])
@pytest.mark.parametrize("perspective", [0.0, 0.25])
def test_groups_roles_and_sideways_winning_tile_under_any_rotation(angle, perspective):
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m")
    readings = scene.readings(angle_degrees=angle, perspective=perspective, jitter=1.5, seed=abs(angle))
    layout = layout_tiles(readings)
    roles = _roles(layout, scene)
    assert roles["concealed"] == [sorted(CONCEALED + ["3m"])]
    assert roles["meld"] == [["5z", "5z", "5z"]]
    assert roles["concealed_kong"] == [["9p"] * 4]
    assert roles["flowers"] == [["1f", "6f"]]
    assert layout.winning_index == scene.winning_position
    assert layout.ignored == ()


def test_winning_tile_set_apart_at_the_end_of_the_row():
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="apart")
    layout = layout_tiles(scene.readings(angle_degrees=200, jitter=1.0))
    assert layout.winning_index == scene.winning_position
    assert _roles(layout, scene)["concealed"] == [sorted(CONCEALED + ["3m"])]


def test_unshown_winning_tile_is_reported_as_ambiguous():
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="none")
    layout = layout_tiles(scene.readings(angle_degrees=10))
    assert layout.winning_index is None
    assert any("does not show which tile won" in w for w in layout.warnings)


def _slanted(readings: list[TileReading], index: int, degrees: float) -> list[TileReading]:
    """``readings`` with tile ``index``'s outline (and angle) turned by ``degrees`` about its centre."""
    reading = readings[index]
    detection = reading.detection
    turned = replace(detection, quad=turned_quad(detection.quad, degrees), angle=detection.angle + degrees)
    return [*readings[:index], TileReading(turned, reading.candidates), *readings[index + 1:]]


@pytest.mark.parametrize("angle", [10, 120])
def test_an_unflagged_winning_tile_is_found_by_its_slant_in_the_row(angle):
    """The detector's outline of a sideways tile it did not flag often comes out half turned."""
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="none")
    readings = scene.readings(angle_degrees=angle, jitter=1.0)
    layout = layout_tiles(_slanted(readings, scene.winning_position, 38.0))
    assert layout.winning_index == scene.winning_position
    assert any("by its slant" in w for w in layout.warnings)
    barely = layout_tiles(_slanted(readings, scene.winning_position, 12.0))
    assert barely.winning_index is None


def test_two_slanted_tiles_in_the_row_name_no_winning_tile():
    scene = lay_out(CONCEALED, MELDS, [], "3m", winning_style="none")
    readings = _slanted(scene.readings(angle_degrees=10), 2, 35.0)
    layout = layout_tiles(_slanted(readings, scene.winning_position, 38.0))
    assert layout.winning_index is None


@pytest.mark.parametrize("angle", [25, 205])
@pytest.mark.parametrize("flagged", [0, 9])
def test_of_two_tiles_flagged_sideways_the_one_lying_across_the_row_wins(flagged, angle):
    """The detector sometimes flags an upright row tile sideways too (render 900088's last 8s, its
    outline a little turned): the tile whose outline lies across the row is the winning one,
    wherever the wrongly flagged tile stands."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    readings = scene.readings(angle_degrees=angle, jitter=1.0)
    wrong = readings[flagged]
    assert not wrong.detection.rotated and flagged != scene.winning_position
    readings[flagged] = TileReading(replace(wrong.detection, rotated=True), wrong.candidates)
    layout = layout_tiles(readings)
    assert layout.winning_index == scene.winning_position
    assert any("2 sideways tiles" in w for w in layout.warnings)


@pytest.mark.parametrize("angle", [25, 205])
@pytest.mark.parametrize("flagged", [0, 9])
def test_of_two_tiles_flagged_sideways_a_half_hidden_upright_one_does_not_win(flagged, angle):
    """Render 940076: the far end tile of a flat row, half hidden by its neighbour, is outlined
    short across the row and flagged sideways; its outline is longer against its depth than the
    winning tile's (1.72 against 1.68), but no longer along the row than the upright tiles beside
    it, as a tile lying across is."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    readings = _outlined_small(scene.readings(angle_degrees=angle, jitter=1.0), flagged, 0.9, 0.45, True)
    assert flagged != scene.winning_position
    layout = layout_tiles(readings)
    assert layout.winning_index == scene.winning_position
    assert any("2 sideways tiles" in w for w in layout.warnings)


def _outlined_small(readings: list[TileReading], index: int, along: float, across: float,
                    sideways: bool) -> list[TileReading]:
    """Tile ``index``'s outline shrunk about its centre (by ``along`` the row, ``across`` it), and
    perhaps flagged sideways: how the detector sometimes outlines an upright tile of a loosely laid
    set (render 900105's 6s: 0.87 and 0.72, flagged; 900156's middle 4p: 0.67 and 0.8)."""
    reading = readings[index]
    corners = np.array(reading.detection.quad)
    centre = corners.mean(axis=0)
    half_along = (corners[1] - corners[0]) / 2
    half_across = (corners[3] - corners[0]) / 2
    quad = tuple(tuple(map(float, centre + a * along * half_along + b * across * half_across))
                 for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)))
    xs, ys = [p[0] for p in quad], [p[1] for p in quad]
    detection = replace(reading.detection, quad=quad, rotated=sideways,
                        box=(min(xs), min(ys), max(xs), max(ys)))
    return [*readings[:index], TileReading(detection, reading.candidates), *readings[index + 1:]]


@pytest.mark.parametrize("angle", [0, 65])
@pytest.mark.parametrize(("along", "across", "sideways"), [(0.87, 0.72, True), (0.67, 0.8, False)])
def test_a_set_tile_outlined_small_stays_in_its_loosely_laid_set(angle, along, across, sideways):
    """Runs measure the gap between two tiles against the larger one: a poor outline of one tile
    must not split a set whose tiles lie a little apart."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    pung = [k for k, t in enumerate(scene.tiles) if t.code == "5z"]
    for step, k in enumerate(pung):
        scene.tiles[k].u = step * SHORT * 1.3
    readings = _outlined_small(scene.readings(angle_degrees=angle), pung[1], along, across, sideways)
    roles = _roles(layout_tiles(readings), scene)
    assert roles["meld"] == [["5z", "5z", "5z"]]
    assert roles["concealed"] == [sorted(CONCEALED + ["3m"])]


@pytest.mark.parametrize("angle", [0, 140])
def test_a_winning_tile_lying_just_in_front_of_a_crooked_row_does_not_break_the_row(angle):
    """A run's next tile is its nearest neighbour counting the step across the row as well as along
    it: the winning tile lying flat against the front of the row is nearer along it than the row's
    next tile, and where the row bends it then split the row in two (render 900014)."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    winning = scene.winning_position
    scene.tiles[winning].u = scene.tiles[6].u + SHORT * 0.6
    scene.tiles[winning].v = LONG * 0.45
    for step, tile in enumerate(scene.tiles[7:len(CONCEALED)], start=1):
        tile.v -= LONG * 0.1 * step  # the row bends away after its seventh tile
    layout = layout_tiles(scene.readings(angle_degrees=angle))
    assert _roles(layout, scene)["concealed"] == [sorted(CONCEALED + ["3m"])]
    assert layout.winning_index == winning


@pytest.mark.parametrize("backs", ["outer", "inner", "all"])
def test_concealed_kong_is_found_by_its_face_down_tiles(backs):
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs=backs)
    layout = layout_tiles(scene.readings(angle_degrees=75))
    kongs = [g for g in layout.groups if g.role is GroupRole.CONCEALED_KONG]
    assert len(kongs) == 1 and sorted(kongs[0].tile_indices) == [14, 15, 16, 17]


@pytest.mark.parametrize("found", [2, 3])
def test_a_concealed_kong_with_backs_not_found_is_read_when_the_hand_is_one_set_short(found):
    """Kong backs are what the detector misses most; two or three of them complete the hand."""
    scene = lay_out(CONCEALED, MELDS, [], "3m", kong_backs="all")
    kong = [k for k, t in enumerate(scene.tiles) if t.role == "concealed_kong"]
    readings = scene.readings(angle_degrees=30, jitter=1.0)
    seen = [r for k, r in enumerate(readings) if k not in kong[found:]]
    layout = layout_candidates(seen, complete_kongs=True)[0]
    kongs = [g for g in layout.groups if g.role is GroupRole.CONCEALED_KONG]
    assert len(kongs) == 1 and len(kongs[0].tile_indices) == found
    assert any("read from" in w for w in layout.warnings)
    assert not any("belong to no set" in w for w in layout.warnings)
    plain = layout_candidates(seen)[0]
    assert not any(g.role is GroupRole.CONCEALED_KONG for g in plain.groups)
    hand = read_readings(seen, image="kong.jpg", rules="taiwan", infer_unseen=True).hand
    assert hand["concealed"] == sorted_codes(CONCEALED + ["3m"])
    assert [(m["kind"], m["concealed"]) for m in hand["melds"]] == [("pung", False), ("kong", True)]


def test_two_backs_beside_a_complete_hand_stay_a_piece_of_wall():
    """The rule asks the tile count: with every set there, stray backs are not a kong."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    end = max(t.u for t in scene.tiles if t.v > LONG / 2)  # the end of the row of sets
    wall = [SceneTile("1z", end + (2 + k) * SHORT, LONG * 1.25, face_down=True) for k in range(2)]
    scene.tiles += wall
    layout = layout_candidates(scene.readings(angle_degrees=0), complete_kongs=True)[0]
    kongs = [g for g in layout.groups if g.role is GroupRole.CONCEALED_KONG]
    assert len(kongs) == 1 and len(kongs[0].tile_indices) == 4
    assert any("2 tile(s) near the hand belong to no set" in w for w in layout.warnings)


@pytest.mark.parametrize("where", ["after", "between"])
def test_one_back_beside_a_pung_is_not_a_concealed_kong(where):
    """A concealed kong shows two backs or four: a lone back touching sets of faces is a gap or a
    shadow the detector took for a tile (seen on held-out renders: an exposed 3m pung read as a kong)."""
    melds = [("pung", ["5z", "5z", "5z"], False), ("pung", ["9p", "9p", "9p"], False)]
    scene = lay_out(CONCEALED, melds, [], "3m", set_gap=1.0)  # a gap of one tile between the sets
    end = max(t.u for t in scene.tiles if t.v > LONG / 2)
    back = end + SHORT if where == "after" else 3 * SHORT
    scene.tiles.append(SceneTile("1z", back, LONG * 1.25, face_down=True))
    layout = layout_tiles(scene.readings(angle_degrees=25, jitter=1.0))
    assert not any(g.role is GroupRole.CONCEALED_KONG for g in layout.groups)
    assert sorted(_roles(layout, scene)["meld"]) == [["5z"] * 3, ["9p"] * 3]
    assert len(scene.tiles) - 1 in layout.ignored


@pytest.mark.parametrize(("apart", "taken"), [(2.6, True), (3.6, False)])
def test_a_sure_flower_set_apart_before_the_sets_is_the_players(apart, taken):
    """Players set a flower a little apart from their sets; in line with them and within three tile
    widths it is theirs (a held-out render had one 2.5 widths before its chow), further it is not."""
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    scene.tiles.append(SceneTile("2f", -apart * SHORT, LONG * 1.25, role="flower"))
    layout = layout_tiles(scene.readings(angle_degrees=-20, jitter=1.0))
    flower = len(scene.tiles) - 1
    assert (_roles(layout, scene).get("flowers") == [["2f"]]) is taken
    assert (flower in layout.ignored) is not taken


def test_flowers_in_their_own_row_and_touching_sets_stay_one_run():
    melds = [("chow", ["3s", "4s", "5s"], False), ("pung", ["7m", "7m", "7m"], False)]
    scene = lay_out(["1m", "1m", "5p", "6p", "7p", "2z", "2z"], melds, ["2f", "3f", "5f"], "2z",
                    set_gap=0.0, flowers_in_front=False)
    layout = layout_tiles(scene.readings(angle_degrees=-40, jitter=1.0))
    roles = _roles(layout, scene)
    assert roles["meld"] == [sorted(["3s", "4s", "5s", "7m", "7m", "7m"])]  # split later by the decoder
    assert roles["flowers"] == [["2f", "3f", "5f"]]


def _shrunk(reading: TileReading, factor: float) -> TileReading:
    """The reading with its outline and box scaled by ``factor`` about its centre (a tile further off)."""
    quad = np.asarray(reading.detection.quad)
    centre = quad.mean(axis=0)
    small = (quad - centre) * factor + centre
    box = (*small.min(axis=0), *small.max(axis=0))
    detection = replace(reading.detection, quad=tuple(map(tuple, small)), box=tuple(float(v) for v in box))
    return TileReading(detection, reading.candidates)


def test_a_flower_set_apart_is_sized_against_the_row_tiles_near_it():
    """Held-out render 950080: a flower set apart before a pung whose row goes on into a concealed
    kong's backs, which perspective shows smaller. Against the row's median tile the flower looked
    too big to lie in it; against the tiles beside it, it is one of them."""
    melds = [("pung", ["6p", "6p", "6p"], False), ("kong", ["4z"] * 4, True)]
    scene = lay_out(["3m", "3m", "3m", "4m", "9m", "9m", "9m", "5s", "6s", "7s"], melds, [], "5m",
                    kong_backs="all", set_gap=0.2)
    scene.tiles.append(SceneTile("7f", -1.8 * SHORT, LONG * 1.25, role="flower"))
    backs = [i for i, t in enumerate(scene.tiles) if t.face_down]
    far = 0.7  # the backs seen smaller, still touching
    first = scene.tiles[backs[0]].u - SHORT * (1 - far) / 2
    for k, i in enumerate(backs):
        scene.tiles[i].u = first + k * SHORT * far
    readings = scene.readings(angle_degrees=-10, jitter=0.5)
    readings = [_shrunk(r, far) if i in backs else r for i, r in enumerate(readings)]
    layout = layout_tiles(readings)
    assert _roles(layout, scene).get("flowers") == [["7f"]]


@pytest.mark.parametrize("angle", [0, 35])
def test_a_concealed_row_with_a_gap_at_its_sideways_winning_tile_stays_one_row(angle):
    """Held-out renders 900181 and 940076: the winning tile lies across inside the standing row with a
    small gap after it. Centre to centre the gap is wider than between upright tiles (the sideways
    tile is longer along the row), and with the row's second half two pungs, reading that half as
    exposed sets also fits the tile count. Edge to edge it is a gap between tiles of one row."""
    scene = Scene()
    first = ["1m", "2m", "3m", "7s", "8s", "9s", "2z"]
    for k, code in enumerate(first):
        scene.tiles.append(SceneTile(code, k * SHORT, 0.0))
    end = (len(first) - 1) * SHORT + SHORT / 2 + 2.0
    scene.tiles.append(SceneTile("2z", end + LONG / 2, (LONG - SHORT) / 2, rotated=True))
    scene.winning_position = len(scene.tiles) - 1
    start = end + LONG + 0.5 * SHORT  # half a tile width apart, edge to edge
    for k, code in enumerate(["9m", "9m", "9m", "5p", "5p", "5p"]):
        scene.tiles.append(SceneTile(code, start + SHORT / 2 + k * SHORT, 0.0))
    scene.tiles += [SceneTile("4m", k * SHORT, LONG * 1.25, role="meld", group=1) for k in range(4)]
    layout = layout_candidates(scene.readings(angle_degrees=angle, jitter=0.5))[0]
    roles = _roles(layout, scene)
    assert roles["concealed"] == [sorted([*first, "2z", "9m", "9m", "9m", "5p", "5p", "5p"])]
    assert roles["meld"] == [["4m"] * 4]
    assert layout.winning_index == scene.winning_position


@pytest.mark.parametrize("angle", [0, 60])
def test_sets_laid_well_in_front_of_the_row_are_still_the_hand(angle):
    """Held-out renders put the first row of sets up to 2.6 tile heights from a standing row."""
    scene = lay_out(CONCEALED, MELDS, ["1f", "6f"], "3m", front=2.6)
    roles = _roles(layout_tiles(scene.readings(angle_degrees=angle, jitter=1.0)), scene)
    assert roles["meld"] == [["5z", "5z", "5z"]]
    assert roles["concealed_kong"] == [["9p"] * 4]
    assert roles["flowers"] == [["1f", "6f"]]


def _pair_wait_with_five_sets_laid_down() -> Scene:
    """Only the pair's tile stands; its partner, the winning tile, lies across in front of it; the
    five sets lie in three rows further out (the third 4.8 tile heights from the standing tile)."""
    scene = Scene([SceneTile("5p", 0.0, 0.0), SceneTile("5p", 0.0, LONG * 1.0, rotated=True)])
    scene.winning_position = 1
    rows = [(2.2, [["1m", "2m", "3m"], ["9p"] * 3]), (3.6, [["7z"] * 3, ["4s"] * 4]), (4.8, [["2z"] * 3])]
    group = 0
    for depth, sets in rows:
        u = 0.0
        for tiles in sets:
            group += 1
            for code in tiles:
                scene.tiles.append(SceneTile(code, u, LONG * depth, role="meld", group=group))
                u += SHORT
            u += SHORT * 0.7
    return scene


@pytest.mark.parametrize("angle", [0, 35, 160])
def test_a_lone_standing_tile_is_the_concealed_row_when_all_five_sets_are_laid_down(angle):
    scene = _pair_wait_with_five_sets_laid_down()
    layout = layout_tiles(scene.readings(angle_degrees=angle, jitter=0.5))
    roles = _roles(layout, scene)
    assert roles["concealed"] == [["5p", "5p"]]
    assert sorted(map(tuple, roles["meld"])) == sorted(
        [("1m", "2m", "3m"), ("9p",) * 3, ("7z",) * 3, ("4s",) * 4, ("2z",) * 3])
    assert layout.winning_index == scene.winning_position


def test_a_tile_read_best_as_a_flower_stays_a_flower_when_its_belief_is_split():
    """Flowers touching a set, one read 2f at 0.49 with the rest on set tiles (a finger's blur, live):
    grouped with the set it would make a four-tile "set" of 2f 1p 2p 3p that no hand can use."""
    scene = lay_out(["2m", "3m", "4m", "2p", "3p", "4p", "5s", "5s", "5s", "7s", "7s", "8s", "9s"],
                    [("chow", ["1p", "2p", "3p"], False)], ["2f", "5f", "6f"], "7s", set_gap=0.0)
    readings = scene.readings(angle_degrees=20, jitter=0.5)
    first_flower = next(i for i, t in enumerate(scene.tiles) if t.code == "2f")
    readings[first_flower] = TileReading(readings[first_flower].detection,
                                         (("2f", 0.49), ("2p", 0.3), ("1p", 0.21)))
    roles = _roles(layout_tiles(readings), scene)
    assert roles["flowers"] == [["2f", "5f", "6f"]]
    assert roles["meld"] == [["1p", "2p", "3p"]]


def test_far_tiles_are_ignored_with_a_warning():
    scene = lay_out(CONCEALED, MELDS, [], "3m")
    scene.tiles.append(SceneTile("8m", 100.0, -400.0))  # a discard in the middle of the table
    layout = layout_tiles(scene.readings(angle_degrees=5))
    assert layout.ignored == (len(scene.tiles) - 1,)
    assert any("ignored" in w for w in layout.warnings)


def test_two_hands_in_one_photo_is_an_input_error():
    scene = lay_out(CONCEALED + ["5m", "5m", "5m"], [], [], "3m")
    for tile in list(scene.tiles):
        scene.tiles.append(SceneTile(tile.code, tile.u, tile.v + 900.0, tile.rotated))
    with pytest.raises(InputError, match="two hands"):
        layout_tiles(scene.readings())


def _suit_in_a_grid(column_gap: float, row_gap: float, ranks: range = range(1, 10),
                    first_column: int = 4) -> Scene:
    """Bamboos four of each (``first_column`` of the first), a column per face, as a shop
    photographs a set."""
    scene = Scene()
    for column, rank in enumerate(ranks):
        for row in range(first_column if column == 0 else 4):
            scene.tiles.append(SceneTile(f"{rank}s", column * (SHORT + column_gap), row * (LONG + row_gap)))
    return scene


@pytest.mark.parametrize("angle", [0, 90, 200])
def test_a_suit_laid_out_in_columns_is_not_read_as_a_hand(angle):
    """Columns further apart than the tiles in them are runs of four across the row. Two 1s and
    columns of 2s-6s count as a hand of five kongs and a pair; the shared set photo bams2.jpg read
    so, 70 tai, until the layout counted the rows."""
    scene = _suit_in_a_grid(column_gap=0.45 * SHORT, row_gap=2.0, ranks=range(1, 7), first_column=2)
    with pytest.raises(InputError, match="grid"):
        layout_tiles(scene.readings(angle_degrees=angle, jitter=1.0))
    with pytest.raises(InputError, match="grid"):
        read_readings(scene.readings(angle_degrees=angle, jitter=1.0), rules="taiwan", infer_unseen=True)


def test_a_whole_suit_laid_out_in_rows_has_more_sets_than_a_hand():
    scene = _suit_in_a_grid(column_gap=2.0, row_gap=0.3 * LONG)
    with pytest.raises(InputError, match="a hand holds at most 5"):
        read_readings(scene.readings(jitter=1.0), rules="taiwan", infer_unseen=True)


def test_a_set_far_off_on_the_table_does_not_complete_a_hand_one_set_short():
    """A pung of tiles a third the row's size lies at the far wall (another player's): a hand with
    one set missing from the photo stays a set short instead of taking it (a real table photo
    scored 13 tai so)."""
    scene = lay_out(CONCEALED, [("pung", ["5z", "5z", "5z"], False)], [], "3m")
    far = len(scene.tiles)
    scene.tiles += [SceneTile("3s", k * SHORT * 0.4, -2.6 * LONG) for k in range(3)]
    readings = scene.readings(jitter=0.5)
    readings = readings[:far] + [_shrunk(r, 0.35) for r in readings[far:]]
    layout = layout_tiles(readings)
    assert _roles(layout, scene)["meld"] == [["5z", "5z", "5z"]]
    assert set(range(far, far + 3)) <= set(layout.ignored)


def _pair_with_four_sets_beside_it() -> Scene:
    """Real table photo 421037392_..._3606502953821611535: a pair of 7z standing, four chows laid
    down beside it along the table, a fifth set not in the photo."""
    scene = Scene([SceneTile("7z", 0.0, 0.0), SceneTile("7z", SHORT, 0.0)])
    chows = [(["2m", "3m", "4m"], -0.6), (["6m", "7m", "8m"], 0.3), (["3m", "4m", "5m"], -0.7),
             (["7m", "8m", "9m"], 0.2)]
    u = 3 * SHORT
    for group, (tiles, depth) in enumerate(chows, start=1):
        for code in tiles:
            scene.tiles.append(SceneTile(code, u, LONG * depth, role="meld", group=group))
            u += SHORT
        u += SHORT * 0.5
    return scene


@pytest.mark.parametrize("angle", [0, 30])
def test_a_discard_lying_sideways_off_the_hand_does_not_carry_it_on_into_the_discards(angle):
    """The real photo: a discard lying sideways 2.7 tile heights off the pair took the rows of sets
    on to a chow among the discards just beyond it, which completed the hand (16 tai at 69%)."""
    scene = _pair_with_four_sets_beside_it()
    discards = len(scene.tiles)
    scene.tiles.append(SceneTile("9p", -SHORT, -2.7 * LONG, rotated=True, role="discard"))
    scene.tiles += [SceneTile(code, k * SHORT * 0.6, -3.3 * LONG, role="discard")
                    for k, code in enumerate(["1p", "2p", "3p"])]
    readings = scene.readings(angle_degrees=angle, jitter=0.5)
    readings = readings[:discards + 1] + [_shrunk(r, 0.6) for r in readings[discards + 1:]]
    layout = next(c for c in layout_candidates(readings, limit=8)
                  if _roles(c, scene)["concealed"] == [["7z", "7z"]])
    assert sorted(map(sorted, _roles(layout, scene)["meld"])) == [
        ["2m", "3m", "4m"], ["3m", "4m", "5m"], ["6m", "7m", "8m"], ["7m", "8m", "9m"]]
    assert set(range(discards, discards + 4)) <= set(layout.ignored)
    with pytest.raises(InputError, match="not a winning hand"):
        read_readings(readings, rules="taiwan")


def test_sets_in_two_rows_in_front_and_the_flowers_beyond_them_are_still_a_hand():
    melds = [("pung", ["5z"] * 3, False), ("chow", ["3p", "4p", "5p"], False), ("pung", ["7s"] * 3, False),
             ("pung", ["9m"] * 3, False)]
    scene = lay_out(["1m", "2m", "3m", "2z", "2z"], melds, ["1f", "2f", "3f"], "3m")
    tiles = scene.tiles
    # The last two sets laid in a second row behind the first, the flowers in a third.
    for tile in tiles:
        if tile.role == "meld" and tile.code in ("7s", "9m"):
            tile.v += LONG + 6.0
            tile.u -= 5 * (SHORT + 2.0)
        if tile.role == "flower":
            tile.v += 2 * (LONG + 6.0)
    layout = layout_tiles(scene.readings(jitter=1.0))
    assert sorted(len(g.tile_indices) for g in layout.groups if g.role is GroupRole.MELD) == [3, 3, 3, 3]


def test_no_tiles_is_an_input_error():
    with pytest.raises(InputError, match="no tiles"):
        layout_tiles([])


def test_face_down_concealed_row_is_an_input_error():
    scene = lay_out(CONCEALED, [], [], "3m")
    for tile in scene.tiles:
        tile.face_down = True
    with pytest.raises(InputError, match="face-down"):
        layout_tiles(scene.readings())


def test_row_direction_is_axial():
    import numpy as np

    centres = np.array([[0.0, 0.0], [10.0, 10.0], [20.0, 20.0], [30.0, 30.0]])
    assert abs(estimate_row_direction(centres) - np.pi / 4) < 1e-6
    assert abs(estimate_row_direction(centres[::-1]) - np.pi / 4) < 1e-6


def _reread(readings: list[TileReading], scene: Scene, code: str, candidates, nth: int = 0) -> None:
    """Give the ``nth`` scene tile of ``code`` other classifier candidates (a misreading)."""
    index = [i for i, t in enumerate(scene.tiles) if t.code == code][nth]
    readings[index] = TileReading(readings[index].detection, tuple(candidates))


def test_a_row_of_flowers_with_one_read_as_a_set_tile_stays_all_flowers():
    """Seven flowers in their own row, 梅 1 read as 2p and three others unsure (a held-out render):
    taking the two least sure flowers back would make a "set" of 2p and two flowers."""
    scene = lay_out(["1m", "2m", "3m", "5p", "6p", "7p", "2s", "3s", "4s", "6s", "7s", "8s", "9m"],
                    [("chow", ["3s", "4s", "5s"], False)], ["1f", "2f", "3f", "5f", "6f", "7f", "8f"],
                    "9m", flowers_in_front=False)
    readings = scene.readings(angle_degrees=-15, jitter=0.5)
    _reread(readings, scene, "1f", [("2p", 0.63), ("1f", 0.3), ("3p", 0.07)])
    _reread(readings, scene, "3f", [("3f", 0.75), ("2p", 0.25)])
    _reread(readings, scene, "6f", [("6f", 0.7), ("6m", 0.3)])
    _reread(readings, scene, "8f", [("8f", 0.47), ("8m", 0.4), ("5f", 0.13)])
    roles = _roles(layout_tiles(readings), scene)
    assert roles["flowers"] == [["1f", "2f", "3f", "5f", "6f", "7f", "8f"]]
    assert roles["meld"] == [["3s", "4s", "5s"]]


def test_a_set_read_partly_as_flowers_beside_a_flower_is_still_a_set():
    """A pung of 6m touching a flower, two of its tiles read as flowers at 0.7 and the third not:
    the flower mass says two misread set tiles, not a fourth flower."""
    scene = lay_out(["1m", "2m", "3m", "5p", "6p", "7p", "2s", "3s", "4s", "6s", "7s", "8s", "9m"],
                    [("pung", ["6m", "6m", "6m"], False)], ["2f"], "9m", set_gap=0.0)
    readings = scene.readings(angle_degrees=30, jitter=0.5)
    _reread(readings, scene, "6m", [("6f", 0.7), ("6m", 0.3)], nth=0)
    _reread(readings, scene, "6m", [("7f", 0.7), ("6m", 0.3)], nth=1)
    roles = _roles(layout_tiles(readings), scene)
    assert roles["meld"] == [["6m", "6m", "6m"]]
    assert roles["flowers"] == [["2f"]]


def test_a_set_whose_middle_tile_reads_unsure_as_a_flower_belongs_to_the_hand():
    """A pung of 6m in front of the row, its middle tile read 6f at 0.45 (a render from above): two
    set tiles and a "flower" are no group on the table, so the run is the set it shows."""
    scene = lay_out(["1m", "2m", "3m", "5p", "6p", "7p", "2s", "3s", "4s", "6s", "7s", "8s", "9m"],
                    [("pung", ["6m", "6m", "6m"], False)], [], "9m")
    readings = scene.readings(angle_degrees=10, jitter=0.5)
    _reread(readings, scene, "6m", [("6f", 0.45), ("8s", 0.3), ("6m", 0.25)], nth=1)
    layout = layout_tiles(readings)
    roles = _roles(layout, scene)
    assert roles["meld"] == [["6m", "6m", "6m"]]
    assert not layout.ignored
