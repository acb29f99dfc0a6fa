"""Reading a user's TOML file (a house rule set, a table-settings file) with one-line errors.

Rule files and table files fail the same ways (missing, unreadable, not TOML); the message names
what kind of file it was, so the player knows which one to fix.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from scoring.errors import InputError


def read_toml(path: str | Path, what: str) -> dict[str, Any]:
    """Parse the TOML file at ``path``; any problem is an :class:`InputError` starting ``{what} {path}``."""
    path = Path(path)
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as error:
        raise InputError(f"{what} {path} does not exist") from error
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{what} {path} cannot be read: {error}") from error
    except tomllib.TOMLDecodeError as error:
        raise InputError(f"{what} {path} is not valid TOML: {error}") from error
