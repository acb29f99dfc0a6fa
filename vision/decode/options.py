"""The search's variables: one per standing tile and flower, one per exposed set and concealed
kong, each with its options (codes for its tiles and a probability), most probable first."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import permutations

from scoring.tiles import FLOWER_CODES, SET_TILE_CODES, is_suited, next_in_suit
from vision.layout import back_mass
from vision.types import GroupRole, Layout, Refusal, TileReading

#: Probability given to a code the classifier did not list among its top-k.
FLOOR = 1e-6
#: Options per exposed group kept (sorted by probability).
MAX_GROUP_OPTIONS = 60

CODE_INDEX = {code: i for i, code in enumerate(SET_TILE_CODES)}


@dataclass(frozen=True)
class Option:
    """One way to read one variable: codes for its tiles (reading index -> code) and a probability."""

    log_p: float
    codes: tuple[tuple[int, str], ...]
    kind: str | None = None  # chow/pung/kong for groups
    face: str | None = None  # concealed kong face
    split: tuple[tuple[int, ...], ...] = ()  # for exposed groups holding several sets


@dataclass(frozen=True)
class Variable:
    role: GroupRole
    tile_indices: tuple[int, ...]
    options: tuple[Option, ...]


def log_of(p: float) -> float:
    return math.log(max(p, FLOOR))


def tile_options(reading: TileReading, index: int, allowed: tuple[str, ...]) -> tuple[Option, ...]:
    """A standing tile or a flower: its candidates restricted to ``allowed`` (all of them, at the floor,
    if the classifier named none: then only the game's constraints can tell)."""
    allowed_set = set(allowed)
    options = [Option(log_of(p), ((index, code),)) for code, p in reading.candidates if code in allowed_set]
    if not options:
        options = [Option(log_of(FLOOR), ((index, code),)) for code in allowed]
    return tuple(sorted(options, key=lambda o: -o.log_p))


def set_options(readings: list[TileReading], indices: tuple[int, ...]) -> list[Option]:
    """Every legal exposed set on these tiles (a chow may lie in any order: the claimed tile sits in
    the middle), with probability."""
    size = len(indices)
    candidates = set()
    for i in indices:
        candidates.update(code for code, _ in readings[i].candidates if code in CODE_INDEX)
    options: list[Option] = []
    if size in (3, 4):
        kind = "pung" if size == 3 else "kong"
        for code in candidates:
            log_p = sum(log_of(readings[i].probability_of(code, FLOOR)) for i in indices)
            options.append(Option(log_p, tuple((i, code) for i in indices), kind=kind))
    if size == 3:
        starts = {c for c in candidates if is_suited(c)}
        starts |= {s for c in list(starts) for s in (next_in_suit(c, -1), next_in_suit(c, -2)) if s}
        for start in starts:
            run = (start, next_in_suit(start, 1), next_in_suit(start, 2))
            if None in run:
                continue
            for order in set(permutations(run)):
                log_p = sum(log_of(readings[i].probability_of(code, FLOOR)) for i, code in zip(indices, order,
                                                                                          strict=True))
                options.append(Option(log_p, tuple(zip(indices, order, strict=True)), kind="chow"))
    options.sort(key=lambda o: -o.log_p)
    return options[:MAX_GROUP_OPTIONS]


def compositions(size: int) -> list[tuple[int, ...]]:
    """Ways to cut a run of ``size`` touching tiles into consecutive sets of 3 or 4."""
    if size == 0:
        return [()]
    out = []
    for part in (3, 4):
        if size >= part:
            out.extend((part,) + rest for rest in compositions(size - part))
    return out


def group_options(readings: list[TileReading], indices: tuple[int, ...]) -> tuple[Option, ...] | Refusal:
    """Exposed tiles in one touching run: every split into legal sets, best first; a refusal when
    their count splits into none."""
    splits = compositions(len(indices))
    if not splits:
        return Refusal(f"{len(indices)} touching tiles in front of the hand cannot be split into sets "
                       "of 3 or 4; leave a gap between the exposed sets")
    options: list[Option] = []
    for split in splits:
        parts, start = [], 0
        for size in split:
            parts.append(indices[start:start + size])
            start += size
        combos = [Option(0.0, (), split=())]
        for part in parts:
            part_options = set_options(readings, part)[:20]
            combos = [Option(c.log_p + o.log_p, c.codes + o.codes, kind=f"{c.kind or ''},{o.kind}",
                              split=c.split + (part,)) for c in combos for o in part_options]
            combos.sort(key=lambda o: -o.log_p)
            combos = combos[:MAX_GROUP_OPTIONS]
        options.extend(Option(c.log_p, c.codes, kind=c.kind.strip(","), split=c.split) for c in combos)
    options.sort(key=lambda o: -o.log_p)
    return tuple(options[:MAX_GROUP_OPTIONS])


def kong_options(readings: list[TileReading], indices: tuple[int, ...]) -> tuple[Option, ...]:
    """A concealed kong: one face for all four tiles. A back shows nothing, so it fits any face; with
    four backs every face is equally likely and only the other tiles of the hand can narrow it."""
    options = []
    for code in SET_TILE_CODES:
        p = 1.0
        for i in indices:
            p *= min(1.0, readings[i].probability_of(code, FLOOR) + back_mass(readings[i]))
        options.append((p, code))
    total = sum(p for p, _ in options)
    return tuple(Option(log_of(p / total), tuple((i, code) for i in indices), kind="kong", face=code)
                 for p, code in sorted(options, key=lambda item: -item[0]))


def named_kong(face: str, indices: tuple[int, ...]) -> tuple[Option, ...]:
    """A concealed kong whose face the player named: that face alone."""
    return (Option(0.0, tuple((i, face) for i in indices), kind="kong", face=face),)


def search_variables(readings: list[TileReading], layout: Layout, kong_faces: Sequence[str] = ()
                     ) -> list[Variable] | Refusal:
    """One variable per standing tile and flower, one per set. A concealed kong of four backs takes the
    next face the player named (``kong_faces``) unless another tile of the hand reads as that face (the
    kong could not hide it: ``vision.repairs.hidden_kong.give_kong_faces`` then says so). A refusal
    when a run of exposed tiles splits into no sets."""
    variables: list[Variable] = []
    named: list[str] = []
    if kong_faces:  # (decoding runs many times a photo; most photos name nothing)
        read_faces = {readings[i].code for g in layout.groups if g.role is not GroupRole.CONCEALED_KONG
                      for i in g.tile_indices}
        named = [face for face in kong_faces if face not in read_faces]
    for group in layout.groups:
        if group.role is GroupRole.CONCEALED:
            for i in group.tile_indices:
                variables.append(Variable(group.role, (i,), tile_options(readings[i], i, SET_TILE_CODES)))
        elif group.role is GroupRole.FLOWERS:
            for i in group.tile_indices:
                variables.append(Variable(group.role, (i,), tile_options(readings[i], i, FLOWER_CODES)))
        elif group.role is GroupRole.CONCEALED_KONG:
            all_backs = all(back_mass(readings[i]) > 0.5 for i in group.tile_indices)
            options = (named_kong(named.pop(0), group.tile_indices) if all_backs and named
                       else kong_options(readings, group.tile_indices))
            variables.append(Variable(group.role, group.tile_indices, options))
        else:
            split = group_options(readings, group.tile_indices)
            if isinstance(split, Refusal):
                return split
            variables.append(Variable(group.role, group.tile_indices, split))
    return variables
