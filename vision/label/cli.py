"""``taicam label DIR``: serve the labelling page for a folder of photos (see vision/label/__init__)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scoring.errors import InputError


def serve(folder: Path, port: int, host: str, model: Path | None, no_model: bool, manifest: Path | None,
          verbose: bool) -> None:
    """Open the workspace and serve it until Ctrl+C (or SIGTERM)."""
    from vision.label.proposals import ModelBundle, ProposalCache
    from vision.label.server import LabelApp, LabelServer
    from vision.label.workspace import LabelWorkspace

    workspace = LabelWorkspace(folder, manifest)
    models = ModelBundle(model, enabled=not no_model)
    app = LabelApp(workspace, ProposalCache(workspace.sidecar_dir, models))
    try:
        server = LabelServer(app, host=host, port=port, verbose=verbose)
    except OSError as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    found = ", ".join(kind for kind, path in models.describe().items() if path) or "none"
    print(f"taicam label: {len(workspace)} images in {workspace.root}; labels -> {workspace.manifest_path}",
          flush=True)
    print(f"taicam label: models: {found}", flush=True)
    print(f"taicam label: serving {server.url} (Ctrl+C to stop)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def run_export_crops(folder: Path, manifest: Path | None, out_dir: Path, reviewed_only: bool) -> None:
    from vision.label.exchange import export_crops
    from vision.label.workspace import LabelWorkspace

    counts = export_crops(LabelWorkspace(folder, manifest), out_dir, reviewed_only)
    print(f"taicam label: wrote {sum(counts.values())} crops of {len(counts)} codes to {out_dir}")


def register(app: typer.Typer) -> None:
    @app.command("label")
    def label(
        folder: Annotated[Path, typer.Argument(help="Folder of photos to label (searched recursively).")],
        port: Annotated[int, typer.Option(help="Port to serve on (0 picks a free one).")] = 8765,
        host: Annotated[str, typer.Option(
            help="Address to bind; anything but the loopback shows your photos to others.")] = "127.0.0.1",
        model: Annotated[Path | None, typer.Option(
            help="Folder with detector.onnx / classifier.onnx (default: the shipped models).")] = None,
        no_model: Annotated[bool, typer.Option("--no-model", help="Propose nothing; label by hand.")] = False,
        manifest: Annotated[Path | None, typer.Option(
            help="Manifest to write (default: FOLDER/manifest.jsonl).")] = None,
        verbose: Annotated[bool, typer.Option("--verbose", help="Log every request on stderr.")] = False,
        export_crops: Annotated[Path | None, typer.Option(
            help="Write every labelled tile to OUT/<code>/ for classifier training, then exit.")] = None,
        reviewed_only: Annotated[bool, typer.Option(
            "--reviewed-only", help="Exports take only images marked reviewed.")] = False,
    ) -> None:
        """Label a folder of photos in the browser: the model proposes, you correct; saved on every change."""
        if not 0 <= port <= 65535:
            raise InputError(f"--port must be 0..65535, got {port}")
        if export_crops is not None:
            run_export_crops(folder, manifest, export_crops, reviewed_only)
            return
        serve(folder, port, host, model, no_model, manifest, verbose)

