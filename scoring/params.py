"""Rule-row parameters that follow a rule set's options.

A row may say ``params = { honour_pair_only = "option:half_flush_honour_pair_only" }``: the value
is then the option's current value, so a house file or table can flip it without new rows.
"""

from __future__ import annotations


def resolve_params(params: dict, options: dict) -> dict:
    """``params`` with every ``"option:NAME"`` value replaced by ``options[NAME]``."""
    if not any(isinstance(v, str) and v.startswith("option:") for v in params.values()):
        return params
    return {k: options.get(v[7:]) if isinstance(v, str) and v.startswith("option:") else v
            for k, v in params.items()}
