"""Situations as evidence: which units the situations a text describes engage, and how strongly each one.

A situation (`kb/situations.py`) lists the units it engages in the order a volunteer would show them; the
first counts fully, the next ones less (1, 1/2, 1/3...), and a unit whose role is what the ask needs (a
compensation table for "how much", a deadline for "by when") counts fully wherever it stands. A unit
engaged by several situations keeps its strongest share. The engine adds the share, weighted, to the unit's
fused score (`retrieval/fusion.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from kb.passage import UnitId
from kb.situations import Situations
from query_understanding.machine_text import without_facts


@dataclass(frozen=True)
class Engagement:
    """How the situations a text tells engage one unit: its strongest share, how many of them engage it, its best
    place among their units (0: first), the roles they give it, and whether one of those roles is what the ask
    asks for. The share lifts the unit (`retrieval/fusion.py`); the rest is the ranker's evidence
    (`retrieval/ranker.py`)."""

    share: float
    situations: int
    place: int
    roles: frozenset[str]
    asked: bool


def engagements(
    situations: Situations,
    searched: str,
    ask: str,
    dialogue: tuple[str, ...] = (),
    earlier_turns: float = 1.0,
    other_roles: float = 1.0,
    reach: str | None = None,
) -> dict[UnitId, Engagement]:
    """unit -> how the situations `searched` or its message describes engage it, its share in (0, 1] ordered by
    what `ask` needs.

    An ask split from a long story often leaves the cause or the bag's fate in another sentence of the message:
    the message's situations count as fully as the ask's own (chosen over half as much and not at all on the dev,
    tuning, story and held-out sets: equal or better on each). Earlier turns of the `dialogue` complete a
    situation only when the ask names a piece of it (`Situations.holding`): "what about the stroller?" after a
    bent frame, not a question about a seat after a cancellation. A situation that only the searched question
    brings from earlier turns (their facts, carried into a follow-up about the stroller) counts `earlier_turns`
    times as much as one the last message itself tells (`Weights.earlier_turns`). The ask decides which of a
    situation's units comes first; when it asks for something (money, a deadline, a definition), a unit in
    another role counts `other_roles` times its place's share (`Weights.other_roles`). When the dialogue says
    where the flight went (`reach`: domestic or international), a unit governing only the other kind of flight is
    no unit of the situation, and the next one takes its place; a situation of one reach (the Convention's delay
    article) holds only for a flight of that reach.
    """
    needed = situations.needed(without_facts(ask))  # the facts in brackets are the story's, not the ask
    message, earlier = (dialogue[-1], "\n".join(dialogue[:-1])) if dialogue else ("", "")
    told = {situation.id for situation in situations.holding(message, earlier, reach)} if earlier else None
    found: dict[UnitId, Engagement] = {}
    for situation in situations.holding(searched, earlier, reach, beside=message):
        weight = 1.0 if told is None or situation.id in told else earlier_turns
        units = [engaged for engaged in situation.units if not (reach and engaged.reach and engaged.reach != reach)]
        for place, engaged in enumerate(units):
            share = weight * (1.0 if engaged.role in needed else (other_roles if needed else 1.0) / (place + 1))
            before = found.get(engaged.unit) or Engagement(0.0, 0, place, frozenset(), False)
            found[engaged.unit] = Engagement(
                max(share, before.share),
                before.situations + 1,
                min(place, before.place),
                before.roles | {engaged.role},
                before.asked or engaged.role in needed,
            )
    return found
