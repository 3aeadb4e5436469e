"""The redaction measurement runs on the shipped set and keeps every fact the law needs."""

from __future__ import annotations

from eval.__main__ import main


def test_redaction_measurement(capsys):
    assert main(["redaction"]) == 0
    printed = capsys.readouterr().out
    assert "kept facts wrongly removed: 0 of" in printed
    assert "card number                7        7    1.00" in printed
