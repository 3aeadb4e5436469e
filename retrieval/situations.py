"""Situations as evidence: which units the situations a text describes engage, and how strongly each one.

A situation (`kb/situations.py`) lists the units it engages in the order a volunteer would show them; the
first counts fully, the next ones less (1, 1/2, 1/3...), and a unit whose role is what the ask needs (a
compensation table for "how much", a deadline for "by when") counts fully wherever it stands. A unit
engaged by several situations keeps its strongest share. The engine adds the share, weighted, to the unit's
fused score (`retrieval/fusion.py`).
"""

from __future__ import annotations

from kb.passage import UnitId
from kb.situations import Situations


def situation_shares(situations: Situations, searched: str, ask: str, context: str = "") -> dict[UnitId, float]:
    """unit -> share in (0, 1] for the situations `searched` or the rest of the dialogue (`context`) describes,
    ordered by what `ask` needs.

    An ask split from a long story, or a follow-up, often leaves the cause or the bag's fate in another sentence
    or turn; the ask itself still decides which of a situation's units comes first. Counting the dialogue's
    situations as fully as the ask's own was chosen over half as much and not at all (`python -m eval retrieval`
    on the dev, tuning, story and held-out sets: equal or better on each).
    """
    needed = situations.needed(ask)
    shares: dict[UnitId, float] = {}
    for situation in situations.holding(f"{searched}\n{context}"):
        for position, engaged in enumerate(situation.units):
            share = 1.0 if engaged.role in needed else 1.0 / (position + 1)
            shares[engaged.unit] = max(shares.get(engaged.unit, 0.0), share)
    return shares
