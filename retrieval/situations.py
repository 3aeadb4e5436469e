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


def situation_shares(situations: Situations, searched: str, ask: str) -> dict[UnitId, float]:
    """unit -> share in (0, 1] for the situations `searched` describes, ordered by what `ask` needs."""
    needed = situations.needed(ask)
    shares: dict[UnitId, float] = {}
    for situation in situations.holding(searched):
        for position, engaged in enumerate(situation.units):
            share = 1.0 if engaged.role in needed else 1.0 / (position + 1)
            shares[engaged.unit] = max(shares.get(engaged.unit, 0.0), share)
    return shares
