"""What a live session writes out: one line per event (a JSON document for pipes, or a line for a
person) and snapshots of a frame with what was read on it. Kept apart from the loop so the output
formats can be read and tested without a camera or a window."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any, TextIO

import cv2
import numpy as np

from scoring.errors import InputError
from vision.dataset.files import atomic_write_bytes
from vision.live.capture import Frame
from vision.live.engine import LiveEvent, LiveUpdate


def event_document(update: LiveUpdate, source: str) -> dict[str, Any]:
    """The JSON line for an update that carries an event: the photo document of ``taicam photo
    --json`` plus the event's fields."""
    assert update.event is not None
    head = {
        "event": str(update.event),
        "source": source,
        "frame": update.frame_index,
        "time": round(update.timestamp, 3),
    }
    if update.event is LiveEvent.HAND and update.announced is not None:
        return {**head, **update.announced.document}
    return head


def describe_event(document: dict[str, Any]) -> str:
    """One human line for an event (the non-JSON output)."""
    when = f"[{document['time']:7.2f} s]"
    if document["event"] != LiveEvent.HAND:
        return f"{when} hand cleared"
    hand = document.get("hand") or {}
    tiles = " ".join(hand.get("concealed", []))
    melds = "  ".join("".join(meld.get("tiles", [])) for meld in hand.get("melds", []))
    flowers = " ".join(hand.get("flowers", []))
    score = document.get("score") or {}
    if score.get("valid", True):
        items = ", ".join(
            f"{item.get('name', item.get('id'))} {item.get('value')}" for item in score.get("items", [])
        )
        verdict = f"{score.get('total')} {score.get('unit', '')} under {score.get('rules', '?')}: {items}"
    else:
        verdict = f"not a winning hand under {score.get('rules', '?')}: {score.get('reason', '')}"
    parts = [tiles, f"melds {melds}" if melds else "", f"flowers {flowers}" if flowers else ""]
    return f"{when} {' | '.join(part for part in parts if part)}  =>  {verdict}"


def save_snapshot(
    directory: Path, frame: Frame, annotated: np.ndarray, update: LiveUpdate | None, source: str, rules: str
) -> Path:
    """Save the raw frame, the annotated frame and a JSON of what was read; returns the JSON path."""
    stem = time.strftime("taicam-live-%Y%m%d-%H%M%S") + f"-f{frame.index}"
    for image, suffix in ((frame.image, ".jpg"), (annotated, ".annotated.jpg")):
        ok, encoded = cv2.imencode(".jpg", image)
        if not ok:
            raise InputError("cannot encode the snapshot image")
        atomic_write_bytes(directory / f"{stem}{suffix}", encoded.tobytes())
    document: dict[str, Any] = {"source": source, "frame": frame.index, "time": round(frame.timestamp, 3)}
    document["rules"] = rules
    if update is not None:
        document["status"] = str(update.status)
        document["tiles"] = [
            {
                "track": track.track_id,
                "code": track.code,
                "box": [round(v, 1) for v in track.detection.box],
                "rotated": track.rotated,
                "face_down": track.face_down,
                "alternatives": [{"code": c, "confidence": round(p, 4)} for c, p in track.voted_candidates()],
            }
            for track in update.tracker.confirmed_tracks()
        ]
        if update.announced is not None:
            document["announced"] = update.announced.document
    json_path = directory / f"{stem}.json"
    atomic_write_bytes(json_path, (json.dumps(document, ensure_ascii=False, indent=2) + "\n").encode())
    return json_path


class EventSink:
    """Where events go: JSON lines (flushed at once, for pipes) or human lines."""

    def __init__(self, stream: TextIO, json_lines: bool) -> None:
        self.stream = stream
        self.json_lines = json_lines

    def emit(self, document: dict[str, Any]) -> None:
        if self.json_lines:
            self.stream.write(json.dumps(document, ensure_ascii=False) + "\n")
        else:
            self.stream.write(describe_event(document) + "\n")
        self.stream.flush()
