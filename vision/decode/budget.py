"""The search budget of one photo or camera frame: how many whole-hand readings all its decoder
searches may examine together, and the wall-clock deadline by which it must answer.

``BudgetLimits`` is the frozen configuration; ``Budget`` is the counter spent while one photo is read.
The photo's entry point makes one and passes it down to every decoding (``vision.decode.decode_hand``);
a part of it (``Budget.part``) spends its own readings and its parent's, under the same deadline. A
photo that holds no hand is so refused within the deadline, however many looks and layouts it gets.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

#: Whole-hand readings one photo may examine over all its looks and layouts, and its first look
#: alone. A photo that is no hand is searched to ``vision.decode.SEARCH_BUDGET`` for every layout
#: of every look, and real table photos can take millions of readings. Hands that read take far
#: fewer, though a first look can fail after a long search where a finer look then reads quickly,
#: so the first look gets half the photo's budget. The one real table photo that read past the
#: photo's budget was a wrong reading (a row of winds squeezed to a third of their width, read as
#: bamboos).
PHOTO_SEARCH_BUDGET = 600_000
LOOK_SEARCH_BUDGET = 300_000
#: Seconds a photo or a camera frame may take, from opening it to its answer: past them the looks
#: and layouts not yet tried are skipped and the photo is refused (a photo of a table that holds no
#: hand took up to 29 s to refuse on the readings budget alone).
TIME_LIMIT_SECONDS = 3.0
#: Seconds of the limit kept back from the searches for what follows them: the model reads a look
#: has under way, the refusal or result built, the answer written. The searches stop this much
#: before the limit so that the answer itself comes within it.
ANSWER_SECONDS = 0.4


@dataclass(frozen=True)
class BudgetLimits:
    """``readings``: whole-hand readings over all searches; ``seconds``: wall-clock time from the
    start to the answer (None: no deadline); ``answer_seconds``: the part of it kept back for the
    answer, so the searches' deadline comes that much earlier."""

    readings: int
    seconds: float | None = None
    answer_seconds: float = 0.0


class Budget:
    """A budget being spent: the readings left (here and in every budget it is a part of) and the
    deadline on ``clock`` (``time.monotonic`` unless a test gives another)."""

    def __init__(self, limits: BudgetLimits, *, parent: Budget | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.limits = limits
        self.readings_left = limits.readings
        self.parent = parent
        self._clock = parent._clock if parent is not None else clock
        own = None if limits.seconds is None else self._clock() + limits.seconds - limits.answer_seconds
        inherited = parent.deadline if parent is not None else None
        self.deadline = min((d for d in (own, inherited) if d is not None), default=None)

    def part(self, readings: int) -> Budget:
        """A part of this budget with at most ``readings`` of its own (a photo's first look): what it
        spends is spent here too, and it has the same deadline."""
        return Budget(BudgetLimits(readings), parent=self)

    def chain(self) -> Iterator[Budget]:
        """This budget and those it is a part of, outermost first."""
        if self.parent is not None:
            yield from self.parent.chain()
        yield self

    def spent(self) -> Budget | None:
        """The outermost budget of the chain whose readings are all spent, or None."""
        return next((b for b in self.chain() if b.readings_left <= 0), None)

    def allowance(self, readings: int) -> int:
        """How many of ``readings`` one search may examine: no more than any budget of the chain has left."""
        return min([readings, *(b.readings_left for b in self.chain())])

    def spend(self, readings: int) -> None:
        for budget in self.chain():
            budget.readings_left -= readings

    def seconds_left(self) -> float | None:
        """Seconds until the deadline (at most 0 once it has passed), or None without one."""
        return None if self.deadline is None else self.deadline - self._clock()

    def expired(self) -> bool:
        """Whether the deadline has passed."""
        return self.deadline is not None and self._clock() >= self.deadline

    @property
    def seconds(self) -> float | None:
        """The time limit the deadline was set from (the outermost budget's)."""
        return next((b.limits.seconds for b in self.chain() if b.limits.seconds is not None), None)


def time_limit_reason(budget: Budget) -> str:
    """The start of a refusal whose searches were cut short by the deadline."""
    return f"no winning hand found within the time limit ({budget.seconds:g} s)"


#: One photo's budget; a camera frame's (a frame that holds no hand must not stall the camera).
PHOTO_BUDGET = BudgetLimits(PHOTO_SEARCH_BUDGET, TIME_LIMIT_SECONDS, ANSWER_SECONDS)
FRAME_BUDGET = BudgetLimits(LOOK_SEARCH_BUDGET, TIME_LIMIT_SECONDS, ANSWER_SECONDS)
#: A photo's readings with no deadline: what is read then depends on the photo alone, not on how
#: fast the machine is (for tests of what a photo reads, on a busy machine).
NO_DEADLINE = BudgetLimits(PHOTO_SEARCH_BUDGET)
