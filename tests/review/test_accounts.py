"""Accounts on a real SQLite file through SQLAlchemy: Argon2 passwords, roles, disabling, the lockout per account
and per address, and the command maintainers use."""

from __future__ import annotations

import io
import sqlite3
import stat
import threading

import pytest

from review import accounts as module
from review.accounts import AccountError, Accounts, Action, Role, lockout_seconds
from review.storage import engine_for

PASSWORD = "correct horse battery"


@pytest.fixture
def accounts(tmp_path) -> Accounts:
    return Accounts(engine_for(f"sqlite:///{tmp_path / 'accounts.sqlite3'}"))


def test_passwords_are_stored_as_argon2_hashes_only(accounts, tmp_path):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    with sqlite3.connect(tmp_path / "accounts.sqlite3") as db:
        (stored,) = db.execute("SELECT password_hash FROM accounts").fetchone()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert stat.S_IMODE((tmp_path / "accounts.sqlite3").stat().st_mode) == 0o600


def test_roles_decide_what_an_account_may_do(accounts):
    volunteer = accounts.create("ana", "volunteer", PASSWORD)
    maintainer = accounts.create("max", "maintainer", PASSWORD)
    assert volunteer.may(Action.JUDGE) and volunteer.may(Action.PROPOSE_BANK_ENTRY)
    for action in (Action.EXPORT, Action.REBUILD, Action.ACCEPT_BANK_ENTRY, Action.MANAGE_ACCOUNTS):
        assert not volunteer.may(action) and maintainer.may(action)


def test_sign_in_with_the_right_password_only(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.1").account.name == "ana"
    assert accounts.sign_in("ana", "wrong password!", "10.0.0.1").account is None
    assert accounts.sign_in("nobody", PASSWORD, "10.0.0.1").account is None


def test_a_disabled_account_cannot_sign_in_and_may_do_nothing(accounts):
    accounts.create("ana", Role.MAINTAINER, PASSWORD)
    accounts.set_disabled("ana", True)
    attempt = accounts.sign_in("ana", PASSWORD, "10.0.0.1")
    assert attempt.account is None and attempt.disabled
    assert not accounts.get("ana").may(Action.JUDGE)
    accounts.set_disabled("ana", False)
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.1").account


def test_wrong_passwords_lock_the_account_from_any_address(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    waits = [accounts.sign_in("ana", "guess guess guess", f"10.0.0.{n}").locked_for for n in range(3)]
    assert waits == [0.0, 0.0, 10.0]
    locked = accounts.sign_in("ana", PASSWORD, "10.9.9.9")
    assert locked.account is None and locked.locked_for > 0


def test_wrong_passwords_lock_the_address_for_every_account(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    waits = [accounts.sign_in(f"guess{n}", "guess guess guess", "10.0.0.7").locked_for for n in range(10)]
    assert waits[-2:] == [0.0, 10.0]
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.7").account is None
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.8").account  # another address is not locked


def test_a_right_password_clears_the_accounts_count(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    for _ in range(2):
        accounts.sign_in("ana", "guess guess guess", "10.0.0.1")
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.1").account
    assert [accounts.sign_in("ana", "guess guess guess", "10.0.0.2").locked_for for _ in range(2)] == [0.0, 0.0]


def test_many_sessions_guessing_at_once_are_all_counted(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD)
    results = []
    guesses = [
        threading.Thread(target=lambda: results.append(accounts.sign_in("ana", "guess guess guess", "10.0.0.1")))
        for _ in range(12)
    ]
    for guess in guesses:
        guess.start()
    for guess in guesses:
        guess.join()
    assert len(results) == 12 and not any(result.account for result in results)
    assert accounts.sign_in("ana", PASSWORD, "10.0.0.9").locked_for > 0


def test_lockout_grows_and_stops_at_an_hour():
    assert [lockout_seconds(n, 3) for n in (1, 2, 3, 4, 5)] == [0.0, 0.0, 10.0, 20.0, 40.0]
    assert lockout_seconds(40, 3) == 3600


def test_provider_users_are_matched_by_email(accounts):
    accounts.create("ana", Role.MAINTAINER, email="Ana@Example.org")
    assert accounts.by_email("ana@example.org").role is Role.MAINTAINER
    assert accounts.by_email("someone@example.org") is None
    assert accounts.sign_in("ana", "", "10.0.0.1").account is None  # no password: provider only


@pytest.mark.parametrize(
    ("name", "password", "email"),
    [("two words", PASSWORD, None), ("ana", "short", None), ("ana", None, None), ("ana", PASSWORD, "no-at")],
)
def test_accounts_that_cannot_be_made_say_why(accounts, name, password, email):
    with pytest.raises(AccountError):
        accounts.create(name, Role.VOLUNTEER, password, email)


def test_a_name_or_email_has_one_account(accounts):
    accounts.create("ana", Role.VOLUNTEER, PASSWORD, "ana@example.org")
    for name, email in (("ana", None), ("bea", "ana@example.org")):
        with pytest.raises(AccountError):
            accounts.create(name, Role.VOLUNTEER, PASSWORD, email)


def test_the_command_creates_lists_and_disables(tmp_path, monkeypatch, capsys):
    db = f"sqlite:///{tmp_path / 'accounts.sqlite3'}"
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert module.main(["--database", db, "create", "max", "--role", "maintainer"]) == 0
    assert module.main(["--database", db, "create", "ana", "--email", "ana@example.org", "--no-password"]) == 0
    assert module.main(["--database", db, "disable", "ana"]) == 0
    assert module.main(["--database", db, "disable", "nobody"]) == 1
    assert module.main(["--database", db, "list"]) == 0
    out = capsys.readouterr().out
    assert "ana\tvolunteer\tana@example.org (disabled)" in out and "max\tmaintainer\t" in out
    assert Accounts(engine_for(f"sqlite:///{tmp_path / 'accounts.sqlite3'}")).sign_in("max", PASSWORD, "x").account
