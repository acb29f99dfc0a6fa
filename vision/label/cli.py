"""``taicam label DIR``: serve the labelling page for a folder of photos (see vision/label/__init__)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scoring.errors import InputError


def serve(folder: Path, port: int, host: str, model: Path | None, no_model: bool, manifest: Path | None,
          verbose: bool, tile_set: str | None = None) -> None:
    """Open the workspace and serve it until Ctrl+C (or SIGTERM)."""
    from vision.label.proposals import ModelBundle, ProposalCache
    from vision.label.server import LabelApp, LabelServer
    from vision.label.workspace import LabelWorkspace

    workspace = LabelWorkspace(folder, manifest)
    models = ModelBundle(model, enabled=not no_model, tile_set=tile_set)
    app = LabelApp(workspace, ProposalCache(workspace.sidecar_dir, models))
    try:
        server = LabelServer(app, host=host, port=port, verbose=verbose)
    except OSError as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    found = ", ".join(kind for kind, path in models.describe().items() if path) or "none"
    print(f"taicam label: {len(workspace)} images in {workspace.root}; labels -> {workspace.manifest_path}",
          flush=True)
    print(f"taicam label: models: {found}", flush=True)
    from vision.server_core import announce, serve_until_stopped

    for line in announce("label", server.access, host):
        print(line, flush=True)
    serve_until_stopped(server)


def run_exchange(folder: Path, manifest: Path | None, crops: Path | None, yolo: Path | None,
                 coco: Path | None, source: Path | None, reviewed_only: bool, replace: bool) -> None:
    """Import first (so an import + export in one call exports what was imported), then exports."""
    from vision.label import exchange
    from vision.label.workspace import LabelWorkspace

    workspace = LabelWorkspace(folder, manifest)
    if source is not None:
        imported, kept, unmatched = exchange.import_labels(workspace, source, replace)
        print(f"taicam label: imported labels for {imported} photos into {workspace.manifest_path}; "
              f"kept existing labels on {kept}; {unmatched} not found in {workspace.root}")
    if crops is not None:
        counts = exchange.export_crops(workspace, crops, reviewed_only)
        print(f"taicam label: wrote {sum(counts.values())} crops of {len(counts)} codes to {crops}")
    if yolo is not None:
        print(f"taicam label: wrote {exchange.export_yolo(workspace, yolo, reviewed_only)} photos "
              f"as YOLO to {yolo}")
    if coco is not None:
        print(f"taicam label: wrote {exchange.export_coco(workspace, coco, reviewed_only)} photos "
              f"as COCO to {coco}")


def register(app: typer.Typer) -> None:
    @app.command("label")
    def label(
        folder: Annotated[Path, typer.Argument(help="Folder of photos to label (searched recursively).")],
        port: Annotated[int, typer.Option(help="Port to serve on (0 picks a free one).")] = 8765,
        host: Annotated[str, typer.Option(
            help="Address to bind; off the loopback (0.0.0.0: every interface) a random access token "
                 "is printed in the URL and required on every request.")] = "127.0.0.1",
        model: Annotated[Path | None, typer.Option(
            help="Folder with detector.onnx / classifier.onnx (default: the shipped models).")] = None,
        no_model: Annotated[bool, typer.Option("--no-model", help="Propose nothing; label by hand.")] = False,
        manifest: Annotated[Path | None, typer.Option(
            help="Manifest to write (default: FOLDER/manifest.jsonl).")] = None,
        verbose: Annotated[bool, typer.Option("--verbose", help="Log every request on stderr.")] = False,
        export_crops: Annotated[Path | None, typer.Option(
            help="Write every labelled tile to OUT/<code>/ for classifier training, then exit.")] = None,
        export_yolo: Annotated[Path | None, typer.Option(
            help="Write the labels as a YOLO folder, then exit.")] = None,
        export_coco: Annotated[Path | None, typer.Option(
            help="Write the labels as COCO (OUT/annotations.json + images), then exit.")] = None,
        import_labels: Annotated[Path | None, typer.Option(
            "--import", help="Take labels from a YOLO folder or a COCO JSON for photos not labelled yet, "
                             "then exit.")] = None,
        replace: Annotated[bool, typer.Option(
            "--replace", help="With --import: overwrite photos that already have labels.")] = False,
        reviewed_only: Annotated[bool, typer.Option(
            "--reviewed-only", help="Exports take only images marked reviewed.")] = False,
        tile_set: Annotated[str | None, typer.Option(
            "--set", help="Propose with a tile set learned with 'taicam sets learn'.")] = None,
        add_to_set: Annotated[str | None, typer.Option(
            "--add-to-set", help="Add the tiles of every reviewed photo to this learned tile set "
            "(created if new), then exit.")] = None,
    ) -> None:
        """Label a folder of photos in the browser: the model proposes, you correct; saved on every change."""
        if not 0 <= port <= 65535:
            raise InputError(f"--port must be 0..65535, got {port}")
        if add_to_set is not None:
            from vision.sets.photo import add_reviewed

            print(add_reviewed(folder, manifest, add_to_set))
            return
        if any(option is not None for option in (export_crops, export_yolo, export_coco, import_labels)):
            run_exchange(folder, manifest, export_crops, export_yolo, export_coco, import_labels,
                         reviewed_only, replace)
            return
        serve(folder, port, host, model, no_model, manifest, verbose, tile_set)

