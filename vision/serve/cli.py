"""``taicam serve``: start the table's web app (loopback; ``--lan`` for phones, with a token and a QR)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from scoring.errors import InputError

#: Folder of the game database and the photos when ``--db`` does not say (the user's data folder).
APP_NAME = "taicam"
DB_NAME = "games.sqlite3"


def default_db() -> Path:
    """The game database in the user's data folder (platformdirs)."""
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / DB_NAME


def qr_lines(url: str) -> str:
    """The URL as a QR code drawn with block characters, for a phone's camera to open."""
    import io

    import segno

    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()


def serve(port: int, lan: bool, rules: str | None, table_file: Path | None, db: Path | None,
          verbose: bool) -> None:
    """Open the game database and the models, print where to open the page, serve until Ctrl+C."""
    from scoring.table import load_table
    from scoring.toml_file import read_toml
    from vision.serve.app import ServeApp
    from vision.serve.photos import PhotoDesk
    from vision.serve.routes import ServeServer
    from vision.serve.store import GameStore
    from vision.server_core import announce, serve_until_stopped

    table: dict = {}
    if table_file is not None:
        load_table(table_file)  # every mistake in the file is reported here, once
        table = read_toml(table_file, "table file")
    database = db or default_db()
    store = GameStore(database)
    photos = database.parent / "photos"
    app = ServeApp(store, PhotoDesk(photos), rules or table.get("rules") or "taiwan", table)
    host = "0.0.0.0" if lan else "127.0.0.1"
    try:
        server = ServeServer(app, host=host, port=port, verbose=verbose)
    except OSError as error:
        raise InputError(f"cannot listen on {host}:{port}: {error.strerror or error}") from None
    print(f"taicam serve: games in {database}; photos in {photos}", flush=True)
    for line in announce("serve", server.access, host):
        print(line, flush=True)
    if lan:
        print("taicam serve: scan this with the phone's camera (same Wi-Fi):", flush=True)
        print(qr_lines(server.url), flush=True)
    try:
        serve_until_stopped(server)
    finally:
        store.close()


def register(app: typer.Typer) -> None:
    @app.command("serve")
    def serve_command(
        port: Annotated[int, typer.Option(help="Port to serve on (0 picks a free one).")] = 8766,
        lan: Annotated[bool, typer.Option(
            "--lan", help="Serve the whole local network (phones): prints the URL with a random access "
                          "token and a QR code; every request without the token is refused.")] = False,
        rules: Annotated[str | None, typer.Option(
            help="Rule set for new games (id or file; default: the table file's, else taiwan).")] = None,
        table: Annotated[Path | None, typer.Option(
            "--table", help="Table settings TOML for new games (minimum points, options...).")] = None,
        db: Annotated[Path | None, typer.Option(
            help="Game database (default: games.sqlite3 in the user's data folder).")] = None,
        verbose: Annotated[bool, typer.Option("--verbose", help="Log every request on stderr.")] = False,
    ) -> None:
        """Keep a table's game on a phone: photo -> fixed reading -> score -> payments -> balances."""
        if not 0 <= port <= 65535:
            raise InputError(f"--port must be 0..65535, got {port}")
        serve(port, lan, rules, table, db, verbose)
