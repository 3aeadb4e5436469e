"""Volunteers' proposals for the question bank wait for a maintainer, then go to the bank file or away."""

from __future__ import annotations

import json

from kb.bank import VOLUNTEER_FILE, BankEntry
from review.accounts import open_engine
from review.bank_additions import BankAdditions

ENTRY = BankEntry("SOR-2019-150", "s19", "en", "What is owed for a 5-hour delay?")
OTHER = BankEntry("SOR-2019-150", "s12", "en", "Must they rebook me?")


def test_proposals_wait_until_accepted_into_the_bank_file(tmp_path):
    additions = BankAdditions(open_engine(tmp_path / "accounts.sqlite3"), tmp_path / "bank")
    assert additions.propose([ENTRY, OTHER], by="vera") == 2
    assert additions.propose([ENTRY], by="bea") == 0  # already waiting
    assert not (tmp_path / "bank" / VOLUNTEER_FILE).exists()
    first, second = additions.waiting()
    assert (first.entry, first.proposed_by) == (ENTRY, "vera")
    assert additions.accept(first.id) == ENTRY
    additions.reject(second.id)
    assert additions.waiting() == []
    lines = (tmp_path / "bank" / VOLUNTEER_FILE).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [ENTRY.to_record()]
