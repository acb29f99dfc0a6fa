"""taicam's rules engine: Taiwanese mahjong hands in, itemised scores out.

Pure Python with no numpy or OpenCV, so it can be used (and tested) on its own. The stable entry
points are the names below; everything else is an implementation detail.
"""

from scoring.engine import check_hand, score_hand
from scoring.errors import InputError
from scoring.hand import Hand, Meld, WinContext, hand_from_json, hand_to_json
from scoring.notation import format_notation, parse_notation
from scoring.report import Payment, ScoreItem, ScoreReport, SidePayment
from scoring.rules import RuleSet, list_rulesets, load_ruleset
from scoring.table import TableSettings, load_table

__all__ = [
    "Hand", "InputError", "Meld", "Payment", "RuleSet", "ScoreItem", "ScoreReport", "SidePayment",
    "TableSettings", "WinContext", "check_hand", "format_notation", "hand_from_json", "hand_to_json",
    "list_rulesets", "load_ruleset", "load_table", "parse_notation", "score_hand",
]
