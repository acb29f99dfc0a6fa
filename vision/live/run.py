"""Starting a live session from the command line's choices (kept apart from Typer so it is testable).

Order matters for the user: the source is opened first (a missing camera or file is reported at
once, before the models load), then the models, then the loop runs until the source ends (exit 0
with a summary), the camera is lost for good (exit 1 with the reason), or the user quits.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scoring.errors import InputError
from vision.live.capture import FrameGrabber, Pace, ReconnectPolicy
from vision.live.engine import EngineConfig, LiveEngine
from vision.live.output import EventSink
from vision.live.reading import PipelineHandReader
from vision.live.session import KEY_HELP, LiveSession, SessionOptions
from vision.live.sources import parse_source
from vision.live.stability import DEFAULT_HOLD_SECONDS, StabilityConfig
from vision.live.summary import SessionSummary
from vision.live.tracker import TrackerConfig
from vision.named_tiles import NOTHING_NAMED, NamedTiles

if TYPE_CHECKING:
    from scoring import RuleSet, TableSettings
    from vision.pipeline.setup import Rules
    from vision.types import Classifier, Detector


@dataclass
class LiveRequest:
    """Everything ``taicam live`` was asked to do."""

    source: str = "0"
    rules: Rules = None  # a rule-set id, a rule file, or a loaded scoring.RuleSet
    table: TableSettings | None = None
    context: dict[str, Any] = field(default_factory=dict)
    headless: bool = False
    json_lines: bool = False
    annotate: Path | None = None
    snapshot_dir: Path | None = None
    hold_seconds: float = DEFAULT_HOLD_SECONDS
    realtime: bool = False
    max_seconds: float | None = None
    reconnect_attempts: int = 5
    camera_width: int | None = None
    camera_height: int | None = None
    classify_refresh: float = 1.0
    named: NamedTiles = NOTHING_NAMED  # --kong-face, --winning-tile: what no photo shows


def has_screen() -> bool:
    """Whether a window can be opened (X11/Wayland on Linux; other systems always have one)."""
    if not sys.platform.startswith("linux"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def rules_cycle(first: Rules, first_id: str) -> list[Rules]:
    """The rule sets the "r" key steps through: the one in use (id, file or RuleSet), then the built-ins."""
    from scoring import list_rulesets

    return [first] + [ruleset.id for ruleset in list_rulesets() if ruleset.id != first_id]


def table_for(table: TableSettings | None, ruleset: RuleSet) -> TableSettings | None:
    """The table settings for ``ruleset``: house options that rule set does not know are dropped."""
    if table is None or not getattr(table, "options", None):
        return table
    from dataclasses import replace

    kept = {key: value for key, value in table.options.items() if key in ruleset.options}
    return replace(table, rules=ruleset.id, options=kept)


def check_request(request: LiveRequest) -> None:
    """Reject impossible combinations before anything is opened."""
    if request.hold_seconds <= 0 or request.hold_seconds > 30:
        raise InputError(f"--hold must be between 0 and 30 seconds, got {request.hold_seconds:g}")
    if request.max_seconds is not None and request.max_seconds <= 0:
        raise InputError("--max-seconds must be positive")
    if request.reconnect_attempts < 0:
        raise InputError("--reconnect-attempts cannot be negative")
    if not request.headless and not has_screen():
        raise InputError("no screen to show the live window on (DISPLAY is not set): add --headless")
    if request.annotate is not None:
        suffix = request.annotate.suffix.lower()
        if suffix not in (".mp4", ".avi"):
            raise InputError(f"--annotate {request.annotate}: use an .mp4 or .avi file name")
        if not request.annotate.parent.exists():
            raise InputError(
                f"--annotate {request.annotate}: folder {request.annotate.parent} does not exist"
            )


def build_session(request: LiveRequest, detector: Detector | None = None,
                  classifier: Classifier | None = None) -> LiveSession:
    """Open the source, load the models and wire a session (raises InputError for the user's mistakes)."""
    check_request(request)
    source = parse_source(request.source)
    if request.realtime and source.is_camera:
        raise InputError("--realtime is for video files; a camera is always real time")
    pace = Pace.LIVE if request.realtime else None  # None: every frame of a file, the newest of a camera
    policy = ReconnectPolicy(attempts=request.reconnect_attempts)

    def opener(video_source: Any) -> Any:
        from vision.live.sources import open_capture

        return open_capture(video_source, request.camera_width, request.camera_height)

    grabber = FrameGrabber(source, pace=pace, reconnect=policy, opener=opener).start()
    try:
        rules = request.rules or getattr(request.table, "rules", None) or "taiwan"
        name = source.describe()

        if detector is None:
            from vision.models.detector import TileDetector

            detector = TileDetector()
        faint_below = getattr(detector, "score_threshold", None)

        def make_reader(rules_spec: Any) -> PipelineHandReader:
            from scoring import load_ruleset

            ruleset = load_ruleset(rules_spec)
            return PipelineHandReader(ruleset, table_for(request.table, ruleset), request.context, name,
                                      faint_below=faint_below, named=request.named)

        reader = make_reader(rules)
        if classifier is None:
            from vision.models.classifier import TileClassifier

            classifier = TileClassifier()
        config = EngineConfig(
            tracker=TrackerConfig(),
            stability=StabilityConfig(hold_seconds=request.hold_seconds),
            classify_refresh=request.classify_refresh,
        )
        engine = LiveEngine(detector, classifier, reader, config)
        options = SessionOptions(
            headless=request.headless,
            json_lines=request.json_lines,
            annotate_path=request.annotate,
            snapshot_dir=request.snapshot_dir or Path.cwd(),
            max_seconds=request.max_seconds,
        )
        return LiveSession(
            grabber,
            engine,
            rules_cycle=rules_cycle(rules, reader.rules_id),
            make_reader=make_reader,
            sink=EventSink(sys.stdout, request.json_lines),
            options=options,
            hold_seconds=request.hold_seconds,
        )
    except BaseException:
        grabber.stop()
        raise


def run_live(request: LiveRequest, classifier: Classifier | None = None) -> int:
    """Run ``taicam live``; returns the exit status (the summary goes to stderr). ``classifier``:
    another than the shipped one (one reading with a learned tile set)."""
    session = build_session(request, classifier=classifier)
    if not request.headless:
        print(f"taicam live: {session.grabber.source.describe()} - {KEY_HELP}", file=sys.stderr)
    summary: SessionSummary = session.run()
    print(summary.describe(), file=sys.stderr)
    return 1 if summary.failed else 0
