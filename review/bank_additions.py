"""Question-bank entries volunteers propose, waiting for a maintainer to accept them into kb/bank/ or reject them.

A bank entry changes what every passenger is shown after the next build, so a volunteer's proposal is kept
here, with the account that proposed it, until a maintainer decides. SQLAlchemy Core, beside the accounts.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import sqlalchemy as sa

from kb.bank import BANK_DIR, BankEntry, append_entry

metadata = sa.MetaData()
proposals = sa.Table(
    "bank_proposals",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("doc", sa.String(100), nullable=False),
    sa.Column("unit", sa.String(100), nullable=False),
    sa.Column("lang", sa.String(5), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("proposed_by", sa.String(80), nullable=False),
    sa.Column("proposed_at", sa.Float, nullable=False),
    sa.UniqueConstraint("doc", "unit", "lang", "text"),
)


@dataclass(frozen=True)
class Proposal:
    id: int
    entry: BankEntry
    proposed_by: str


class BankAdditions:
    def __init__(self, engine: sa.Engine, bank_dir: Path = BANK_DIR):
        self.engine = engine
        self.bank_dir = bank_dir
        metadata.create_all(engine)

    def propose(self, entries: list[BankEntry], by: str) -> int:
        """Keep `entries` for a maintainer; one already waiting is not kept twice. Returns how many are new."""
        added = 0
        with self.engine.begin() as db:
            for entry in entries:
                same = sa.select(proposals.c.id).where(
                    (proposals.c.doc == entry.doc)
                    & (proposals.c.unit == entry.unit)
                    & (proposals.c.lang == entry.lang)
                    & (proposals.c.text == entry.text)
                )
                if db.execute(same).first() is None:
                    db.execute(proposals.insert().values(**entry.to_record(), proposed_by=by, proposed_at=time.time()))
                    added += 1
        return added

    def waiting(self) -> list[Proposal]:
        with self.engine.connect() as db:
            rows = db.execute(sa.select(proposals).order_by(proposals.c.id)).all()
        return [Proposal(row.id, BankEntry(row.doc, row.unit, row.lang, row.text), row.proposed_by) for row in rows]

    def accept(self, proposal_id: int) -> BankEntry | None:
        """The proposal written to the volunteers' bank file (the next build indexes it) and no longer waiting."""
        proposal = next((p for p in self.waiting() if p.id == proposal_id), None)
        if proposal is not None:
            append_entry(proposal.entry, self.bank_dir)
            self.reject(proposal_id)
        return proposal.entry if proposal else None

    def reject(self, proposal_id: int) -> None:
        with self.engine.begin() as db:
            db.execute(proposals.delete().where(proposals.c.id == proposal_id))
