"""Who may open the review page, and what each may do there.

Each volunteer signs in as themselves: with a local account a maintainer created (`python -m review.accounts`,
or the review page), its password hashed with Argon2; or, where the organisation has an identity provider,
through it (Streamlit's `st.login`), the provider's e-mail matched to an account here. Either way the account
decides the role, and a disabled account cannot sign in.

Roles: a volunteer judges passages and proposes additions to the question bank; a maintainer also accepts
those additions, exports the judgements, rebuilds the knowledge base and creates or disables accounts.

Wrong passwords lock an account, and the address they came from, for a growing time; an address is allowed
more mistakes than an account, since several volunteers may share one. The tables are SQLAlchemy Core, in the log's
database and migrations (`review.storage`), so the same code runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import time
from dataclasses import dataclass
from enum import StrEnum

import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from foundation.settings import Settings
from review import storage
from review.storage import accounts_table, sign_in_failures

FREE_ACCOUNT_ATTEMPTS = 3  # typing mistakes cost nothing; after these, each wrong password locks the account
FREE_ADDRESS_ATTEMPTS = 10
FIRST_LOCKOUT_SECONDS = 10
MAX_LOCKOUT_SECONDS = 3600
FREES = (FREE_ACCOUNT_ATTEMPTS, FREE_ADDRESS_ATTEMPTS)  # for the account, then for the address
FORGET_FAILURES_AFTER = 24 * 3600  # a count of mistakes left alone this long starts again from nothing
MIN_PASSWORD_CHARS = 12
MAX_NAME_CHARS = storage.MAX_ACCOUNT_NAME_CHARS

_hasher = PasswordHasher()
_NOBODY = _hasher.hash("an account that does not exist")  # checked against, so an unknown name takes as long



class Role(StrEnum):
    VOLUNTEER = "volunteer"
    MAINTAINER = "maintainer"


class Action(StrEnum):
    JUDGE = "judge"
    PROPOSE_BANK_ENTRY = "propose bank entry"
    ACCEPT_BANK_ENTRY = "accept bank entry"
    EXPORT = "export"
    REBUILD = "rebuild"
    MANAGE_ACCOUNTS = "manage accounts"


ALLOWED = {
    Role.VOLUNTEER: frozenset({Action.JUDGE, Action.PROPOSE_BANK_ENTRY}),
    Role.MAINTAINER: frozenset(Action),
}


class AccountError(ValueError):
    """An account cannot be created or changed as asked; the message says why in plain words."""


@dataclass(frozen=True)
class Account:
    name: str
    role: Role
    email: str | None
    disabled: bool
    has_password: bool

    def may(self, action: Action) -> bool:
        return not self.disabled and action in ALLOWED[self.role]


@dataclass(frozen=True)
class SignIn:
    """`account` when the name and password were right and nothing was locked; else how long the account or
    the address stays locked (0 when the attempt was merely wrong), and whether the account is disabled."""

    account: Account | None
    locked_for: float = 0.0
    disabled: bool = False


def lockout_seconds(failures: int, free: int) -> float:
    """How long sign-in stays locked after `failures` wrong passwords in a row: nothing for the first `free`,
    then 10 s, doubling with each further one, at most an hour."""
    if failures < free:
        return 0.0
    return float(min(MAX_LOCKOUT_SECONDS, FIRST_LOCKOUT_SECONDS * 2 ** (failures - free)))


class Accounts:
    """The accounts and the sign-in lockouts in the log's database (`review.storage`, SQLite or PostgreSQL); its
    migrations run on first use."""

    def __init__(self, engine: sa.Engine):
        self.engine = engine
        storage.migrate(engine)

    def create(self, name: str, role: Role | str, password: str | None = None, email: str | None = None) -> Account:
        """A new account; it signs in with `password`, or through the identity provider as `email`, or both."""
        name, role, email = name.strip(), Role(role), _email(email)
        if not name or len(name) > MAX_NAME_CHARS or any(ch.isspace() for ch in name):
            raise AccountError(f"An account name is one word of at most {MAX_NAME_CHARS} characters.")
        if password is None and email is None:
            raise AccountError("An account needs a password, or an e-mail to sign in with the identity provider.")
        row = {"name": name, "role": str(role), "email": email, "disabled": False, "created_at": time.time()}
        row["password_hash"] = _hash(password) if password is not None else None
        with self.engine.begin() as db:
            same = [accounts_table.c.name == name] + ([accounts_table.c.email == email] if email else [])
            taken = db.execute(sa.select(accounts_table.c.name).where(sa.or_(*same))).first()
            if taken:
                raise AccountError(f"The name {name} or its e-mail already has an account.")
            db.execute(accounts_table.insert().values(**row))
        return self.get(name)

    def get(self, name: str) -> Account | None:
        with self.engine.connect() as db:
            row = db.execute(sa.select(accounts_table).where(accounts_table.c.name == name)).first()
        return _account(row) if row else None

    def by_email(self, email: str | None) -> Account | None:
        """The account of a user the identity provider vouches for, by e-mail; None when there is none."""
        if not (email := _email(email)):
            return None
        with self.engine.connect() as db:
            row = db.execute(sa.select(accounts_table).where(accounts_table.c.email == email)).first()
        return _account(row) if row else None

    def all(self) -> list[Account]:
        with self.engine.connect() as db:
            return [_account(row) for row in db.execute(sa.select(accounts_table).order_by(accounts_table.c.name))]

    def set_disabled(self, name: str, disabled: bool) -> None:
        self._update(name, disabled=disabled)

    def set_password(self, name: str, password: str) -> None:
        self._update(name, password_hash=_hash(password))
        self._forget_failures(f"account:{name}")

    def sign_in(self, name: str, password: str, address: str) -> SignIn:
        """Check a name and password unless the account or the address is locked. A wrong one (or an unknown
        name) counts against both; a right one clears the account's count."""
        keys = (f"account:{name.strip()[:MAX_NAME_CHARS]}", f"address:{address[:200]}")
        now = time.time()
        locked = max(self._locked_until(key, now) for key in keys) - now
        if locked > 0:
            return SignIn(None, locked)
        with self.engine.connect() as db:
            row = db.execute(sa.select(accounts_table).where(accounts_table.c.name == name.strip())).first()
        if not _verify(row.password_hash if row else None, password):
            waits = [self._count_failure(key, free, now) for key, free in zip(keys, FREES, strict=True)]
            return SignIn(None, max(waits))
        self._forget_failures(keys[0])
        account = _account(row)
        return SignIn(None, disabled=True) if account.disabled else SignIn(account)

    def _update(self, name: str, **values) -> None:
        with self.engine.begin() as db:
            changed = db.execute(accounts_table.update().where(accounts_table.c.name == name).values(**values))
        if not changed.rowcount:
            raise AccountError(f"There is no account {name}.")

    def _locked_until(self, key: str, now: float) -> float:
        with self.engine.connect() as db:
            row = db.execute(sa.select(sign_in_failures).where(sign_in_failures.c.who == key)).first()
        return row.locked_until if row else 0.0

    def _count_failure(self, key: str, free: int, now: float) -> float:
        """One more wrong password for `key`; how long `key` is now locked. The count is raised by the database
        itself (an UPDATE takes the write lock first), so attempts from many sessions at once are all counted."""
        table = sign_in_failures
        fresh = table.c.last_failure < now - FORGET_FAILURES_AFTER
        raised = sa.case((fresh, 1), else_=table.c.failures + 1)
        for _ in range(2):  # a second try when another session inserted the first failure at the same moment
            try:
                with self.engine.begin() as db:
                    counted = db.execute(
                        table.update().where(table.c.who == key).values(failures=raised, last_failure=now)
                    )
                    if not counted.rowcount:
                        db.execute(table.insert().values(who=key, failures=1, last_failure=now, locked_until=now))
                    failures = db.execute(sa.select(table.c.failures).where(table.c.who == key)).scalar_one()
                    wait = lockout_seconds(failures, free)
                    db.execute(table.update().where(table.c.who == key).values(locked_until=now + wait))
                return wait
            except sa.exc.IntegrityError:
                continue
        raise AccountError("Sign-in could not be counted; try again.")

    def _forget_failures(self, key: str) -> None:
        with self.engine.begin() as db:
            db.execute(sign_in_failures.delete().where(sign_in_failures.c.who == key))


def _hash(password: str) -> str:
    if len(password) < MIN_PASSWORD_CHARS:
        raise AccountError(f"A password has at least {MIN_PASSWORD_CHARS} characters.")
    return _hasher.hash(password)


def _verify(password_hash: str | None, password: str) -> bool:
    try:
        return _hasher.verify(password_hash or _NOBODY, password) and password_hash is not None
    except (VerificationError, InvalidHashError):
        return False


def _email(email: str | None) -> str | None:
    email = (email or "").strip().casefold()
    if email and "@" not in email:
        raise AccountError("An e-mail address has an @.")
    return email or None


def _account(row) -> Account:
    return Account(row.name, Role(row.role), row.email, bool(row.disabled), row.password_hash is not None)


def main(argv: list[str] | None = None) -> int:
    """`python -m review.accounts create|disable|enable|password|list`: maintainers manage accounts here too."""
    parser = argparse.ArgumentParser(prog="python -m review.accounts", description=main.__doc__)
    parser.add_argument("--database", help="a database address (default: the log's own)")
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="a new account; asks for its password unless --no-password")
    create.add_argument("name")
    create.add_argument("--role", choices=[str(role) for role in Role], default=str(Role.VOLUNTEER))
    create.add_argument("--email", help="the e-mail the identity provider vouches for")
    create.add_argument("--no-password", action="store_true", help="sign in through the identity provider only")
    for command, what in (
        ("disable", "stop an account signing in"),
        ("enable", "let it sign in again"),
        ("password", "give it a new password"),
    ):
        commands.add_parser(command, help=what).add_argument("name")
    commands.add_parser("list", help="every account, its role and whether it is disabled")
    args = parser.parse_args(argv)
    accounts = Accounts(storage.engine_for(args.database or storage.database_url(Settings.from_environment())))
    try:
        if args.command == "create":
            password = None if args.no_password else _ask_password()
            account = accounts.create(args.name, args.role, password, args.email)
            print(f"created {account.role} {account.name}")
        elif args.command in ("disable", "enable"):
            accounts.set_disabled(args.name, args.command == "disable")
            print(f"{args.command}d {args.name}")
        elif args.command == "password":
            accounts.set_password(args.name, _ask_password())
            print(f"new password for {args.name}")
        else:
            for account in accounts.all():
                state = " (disabled)" if account.disabled else ""
                print(f"{account.name}\t{account.role}\t{account.email or ''}{state}")
    except AccountError as error:
        print(error, file=sys.stderr)
        return 1
    return 0


def _ask_password() -> str:
    """The password from standard input when it is not a terminal (scripts), else typed twice, unseen."""
    if not sys.stdin.isatty():
        return sys.stdin.readline().rstrip("\n")
    password = getpass.getpass("Password: ")
    if getpass.getpass("Same password again: ") != password:
        raise AccountError("The two passwords differ.")
    return password


if __name__ == "__main__":
    sys.exit(main())
