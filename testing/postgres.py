"""A real PostgreSQL server on 127.0.0.1, in a temporary folder, for tests and the evaluator's scale run.

`initdb` and `pg_ctl` must be on PATH (PostgreSQL 15 on this machine's image); a server that cannot start raises
PostgresUnavailable with the reason, so a test that needs one fails saying why instead of skipping. PostgreSQL
refuses to run as root, so under root the server runs as the `postgres` user, in a folder it owns.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import psycopg

from testing.local_server import free_port

USER = "passenger"


class PostgresUnavailable(RuntimeError):
    """PostgreSQL's programs are missing or the server did not start; the message says which and why."""


@contextmanager
def postgres_server() -> Iterator[str]:
    """A fresh server listening on 127.0.0.1 only, removed afterwards; yields the address of its `postgres`
    database."""
    for program in ("initdb", "pg_ctl"):
        if shutil.which(program) is None:
            raise PostgresUnavailable(f"{program} is not on PATH: install PostgreSQL's server programs")
    directory = Path(tempfile.mkdtemp(prefix="passenger-postgres-"))
    as_user = _unprivileged(directory)
    data, port = directory / "pgdata", free_port()
    try:
        _run([*as_user, "initdb", "-D", str(data), "-U", USER, "--auth=trust", "-E", "UTF8", "--no-sync"], "initdb")
        options = f"-h 127.0.0.1 -p {port} -k {directory} -c fsync=off -c max_connections=200"
        log = str(directory / "server.log")
        _run([*as_user, "pg_ctl", "-D", str(data), "-l", log, "-o", options, "-w", "start"], "pg_ctl start")
        try:
            yield f"postgresql://{USER}@127.0.0.1:{port}/postgres"
        finally:
            stop = [*as_user, "pg_ctl", "-D", str(data), "-m", "immediate", "stop"]
            subprocess.run(stop, capture_output=True, check=False)
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def _unprivileged(directory: Path) -> list[str]:
    """The command prefix that runs PostgreSQL's programs as a user it accepts, owning `directory`."""
    if os.geteuid() != 0:
        return []
    try:
        owner = pwd.getpwnam("postgres")
    except KeyError:
        raise PostgresUnavailable("running as root and there is no `postgres` user to run the server as") from None
    os.chown(directory, owner.pw_uid, owner.pw_gid)
    return ["runuser", "-u", "postgres", "--"]


def new_database(server_url: str) -> str:
    """An empty database on the server, for one test or one run."""
    name = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server_url, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    return server_url.rsplit("/", 1)[0] + f"/{name}"


def _run(command: list[str], what: str) -> None:
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise PostgresUnavailable(f"{what} failed: {(done.stderr or done.stdout).strip()[-2000:]}")
