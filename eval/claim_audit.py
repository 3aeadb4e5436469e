"""The LLM stages of the detector: a memory of the conversation, the answer's claims, a verdict and a severity each.

Each stage that fails (endpoint error, empty, truncated or malformed reply) is recorded and the stages
after it work with what is left; a failure never becomes a finding.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace

from eval.chat import Chat, StageFailure
from eval.hallucination_prompts import CLAIM_EXTRACTION, CLAIM_SEVERITY, CLAIM_VERIFICATION, HISTORY_MEMORY

VERDICTS = ("supported", "contradicted", "unverifiable")


@dataclass(frozen=True)
class Evidence:
    """A passage as the detector reads it: which unit of law, and its words."""

    doc: str
    unit: str
    text: str


@dataclass(frozen=True)
class ClaimVerdict:
    claim: str
    span: str
    verdict: str = ""  # empty when the verification stage gave none
    justification: str = ""
    severity: int | None = None
    severity_justification: str = ""

    @property
    def unsupported(self) -> bool:
        return self.verdict in ("contradicted", "unverifiable")

    def to_record(self) -> dict:
        return asdict(self)


def audit_claims(
    chat: Chat, answer: str, evidence: Sequence[Evidence], turns: Sequence[str]
) -> tuple[list[ClaimVerdict], list[StageFailure]]:
    """Every claim of `answer` with its verdict and, when unsupported, its severity for the passenger."""
    failures: list[StageFailure] = []
    memory = _memory(chat, turns[:-1], failures)
    try:
        claims = _claims(chat, answer)
    except StageFailure as failure:
        return [], [*failures, failure]
    if not claims:
        return [], failures
    try:
        claims = _verify(chat, claims, evidence, memory, turns[-1], failures)
    except StageFailure as failure:
        return claims, [*failures, failure]
    try:
        claims = _rate(chat, claims, turns)
    except StageFailure as failure:
        failures.append(failure)
    return claims, failures


def _memory(chat: Chat, history: Sequence[str], failures: list[StageFailure]) -> str:
    """A short memory of the earlier messages; their own words when the summary fails."""
    if not history:
        return ""
    try:
        return chat.ask("memory", HISTORY_MEMORY, _numbered(history), max_tokens=300)
    except StageFailure as failure:
        failures.append(failure)
        return "\n".join(history)


def _claims(chat: Chat, answer: str) -> list[ClaimVerdict]:
    reply = chat.ask_json("claims", CLAIM_EXTRACTION, f"Answer:\n{answer}")
    entries = reply.get("claims")
    if not isinstance(entries, list):
        raise StageFailure("claims", "no 'claims' list in the reply")
    claims = []
    for entry in entries:
        if isinstance(entry, dict) and isinstance(entry.get("claim"), str) and entry["claim"].strip():
            span = entry.get("span") if isinstance(entry.get("span"), str) and entry["span"].strip() else entry["claim"]
            claims.append(ClaimVerdict(claim=entry["claim"].strip(), span=span.strip()))
    return claims


def _verify(
    chat: Chat,
    claims: list[ClaimVerdict],
    evidence: Sequence[Evidence],
    memory: str,
    last_message: str,
    failures: list[StageFailure],
) -> list[ClaimVerdict]:
    passages = "\n\n".join(f"[P{i}] ({e.doc} {e.unit})\n{e.text}" for i, e in enumerate(evidence, 1))
    user = (
        f"Memory of the conversation:\n{memory or '(no earlier messages)'}\n\n"
        f"Passenger's last message:\n{last_message}\n\n"
        f"Passages:\n{passages or '(none)'}\n\n"
        f"Claims:\n{_numbered(claim.claim for claim in claims)}"
    )
    reply = chat.ask_json("verify", CLAIM_VERIFICATION, user, max_tokens=2000)
    verdicts = _by_claim_number(reply, "verify", "verdicts")
    checked = []
    for number, claim in enumerate(claims, 1):
        entry = verdicts.get(number, {})
        verdict = str(entry.get("verdict", "")).strip().lower()
        if verdict in VERDICTS:
            claim = replace(claim, verdict=verdict, justification=str(entry.get("justification", "")))
        checked.append(claim)
    missing = [str(number) for number, claim in enumerate(checked, 1) if not claim.verdict]
    if missing:
        failures.append(StageFailure("verify", f"no usable verdict for claims {', '.join(missing)}"))
    return checked


def _rate(chat: Chat, claims: list[ClaimVerdict], turns: Sequence[str]) -> list[ClaimVerdict]:
    unsupported = {number: claim for number, claim in enumerate(claims, 1) if claim.unsupported}
    if not unsupported:
        return claims
    listed = "\n".join(
        f"{number}. {claim.claim} ({claim.verdict}: {claim.justification})" for number, claim in unsupported.items()
    )
    user = f"Passenger's messages:\n{_numbered(turns)}\n\nUnsupported claims:\n{listed}"
    reply = chat.ask_json("severity", CLAIM_SEVERITY, user, max_tokens=1000)
    ratings = _by_claim_number(reply, "severity", "ratings")
    rated = []
    for number, claim in enumerate(claims, 1):
        entry = ratings.get(number, {})
        severity = entry.get("severity")
        if number in unsupported and isinstance(severity, int | float) and 1 <= severity <= 5:
            claim = replace(claim, severity=int(severity), severity_justification=str(entry.get("justification", "")))
        rated.append(claim)
    return rated


def _by_claim_number(reply: dict, stage: str, field: str) -> dict[int, dict]:
    entries = reply.get(field)
    if not isinstance(entries, list):
        raise StageFailure(stage, f"no '{field}' list in the reply")
    numbered = {}
    for entry in entries:
        if isinstance(entry, dict):
            try:
                numbered[int(entry.get("claim"))] = entry
            except (TypeError, ValueError):
                continue
    return numbered


def _numbered(lines) -> str:
    return "\n".join(f"{number}. {line}" for number, line in enumerate(lines, 1))
