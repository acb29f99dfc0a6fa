"""The ``taicam`` command: one Typer app; each subcommand lives in the module that owns its job.

Exit status: 0 success, 2 bad input (one line on stderr), 1 internal error.
A command module adds itself with ``register(app)``; the list below is the whole CLI.
"""

from __future__ import annotations

import os
import sys
import traceback

import typer

from scoring.errors import InputError

app = typer.Typer(
    name="taicam",
    help="Score a Taiwanese mahjong hand from a photo, a webcam or written notation.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _root() -> None:
    """Score a Taiwanese mahjong hand from a photo, a webcam or written notation."""


# Each entry is a module with a ``register(app: typer.Typer) -> None`` function.
COMMAND_MODULES: tuple[str, ...] = (
    "scoring.cli",
    "vision.photo_cli",
    "vision.label.cli",
    "vision.serve.cli",
    "vision.live.cli",
    "vision.synth.cli",
    "vision.sets.cli",
)


def _register_commands() -> None:
    import importlib

    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(app)


def _click_errors() -> tuple[type[Exception], ...]:
    """Usage errors (bad flags, missing arguments): Typer vendors click in newer releases."""
    errors: list[type[Exception]] = []
    try:
        from typer._click.exceptions import ClickException as VendoredClickException

        errors.append(VendoredClickException)
    except ImportError:
        pass
    try:
        from click.exceptions import ClickException

        errors.append(ClickException)
    except ImportError:
        pass
    return tuple(errors)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and map exceptions to the documented exit statuses (no tracebacks for users)."""
    _register_commands()
    try:
        # Without standalone mode, click returns the code of a ``typer.Exit`` instead of raising it.
        outcome = app(args=argv, standalone_mode=False)
    except InputError as error:
        print(f"taicam: error: {error}", file=sys.stderr)
        return 2
    except typer.Exit as done:
        return int(done.exit_code or 0)
    except typer.Abort:
        print("taicam: aborted", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    except _click_errors() as error:
        print(f"taicam: error: {error.format_message()}", file=sys.stderr)
        return 2
    except Exception as error:  # noqa: BLE001 - last resort: never show users a traceback
        print(f"taicam: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        if os.environ.get("TAICAM_DEBUG"):
            traceback.print_exc()
        return 1
    return outcome if isinstance(outcome, int) else 0


if __name__ == "__main__":
    sys.exit(main())
