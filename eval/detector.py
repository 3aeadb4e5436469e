"""The hallucination detector: deterministic checks (figures, abstention) plus the LLM claim audit.

A finding is kept when a passenger relying on it could be hurt: every deterministic finding (a figure
the evidence does not state, or an answer that does not abstain when the law provided does not cover
the question), and each LLM-judged contradicted or unverifiable claim rated severity 4 or 5.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from eval.chat import Chat
from eval.claim_audit import ClaimVerdict, Evidence, audit_claims
from eval.figure_check import check_figures

KEPT_SEVERITY = 4
DETERMINISTIC_METHODS = ("figures", "abstention")

_ABSTENTION = re.compile(
    r"\b(?:passages?|extracts?|provisions?|law|regulations?|they|these)\b[^.]{0,40}?"
    r"\b(?:do|does)(?:n[’']t| not) (?:cover|address|apply|mention|deal with|answer|state)"
    r"|\bnot (?:covered|addressed) (?:by|in)\b|\bnone of the passages|\bcan(?:not|[’']t) answer (?:this|your)"
    r"|\b(?:passages?|extraits?|textes?|dispositions?|ils|elles)\b[^.]{0,30}? ne (?:couvrent|couvre|traitent|traite|"
    r"répondent|répond|mentionnent|s[’']appliquent) pas|\baucun (?:des )?(?:passages?|extraits?)",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Finding:
    """One hallucinated span of an answer, with how it was found and why it matters."""

    method: str  # "figures" or "abstention" (deterministic), or "llm"
    type: str  # "contradicted", "unverifiable" or "false acceptance"
    span: str
    start: int | None  # None when the span could not be located in the answer
    end: int | None
    severity: int
    justification: str

    @property
    def deterministic(self) -> bool:
        return self.method in DETERMINISTIC_METHODS


@dataclass(frozen=True)
class Detection:
    """What the detector found in one answer, the claims it checked, and the stages that could not run."""

    findings: tuple[Finding, ...]
    claims: tuple[ClaimVerdict, ...] = ()
    stage_failures: tuple[dict, ...] = ()
    llm_ran: bool = False

    def flagged(self, methods: str = "combined") -> bool:
        return bool(self.kept(methods))

    def kept(self, methods: str = "combined") -> list[Finding]:
        """Findings of one side: "deterministic", "llm" or "combined"."""
        if methods == "deterministic":
            return [finding for finding in self.findings if finding.deterministic]
        if methods == "llm":
            return [finding for finding in self.findings if not finding.deterministic]
        return list(self.findings)

    def to_record(self) -> dict:
        return {
            "findings": [asdict(finding) for finding in self.findings],
            "claims": [claim.to_record() for claim in self.claims],
            "stage_failures": list(self.stage_failures),
            "llm_ran": self.llm_ran,
        }

    @classmethod
    def from_record(cls, record: dict) -> Detection:
        return cls(
            findings=tuple(Finding(**finding) for finding in record["findings"]),
            claims=tuple(ClaimVerdict(**claim) for claim in record["claims"]),
            stage_failures=tuple(record["stage_failures"]),
            llm_ran=record["llm_ran"],
        )


def abstains(answer: str) -> bool:
    """Whether the answer says the law it was given does not cover the question."""
    return bool(_ABSTENTION.search(answer))


def detect(
    answer: str,
    evidence: Sequence[Evidence],
    turns: Sequence[str],
    *,
    unanswerable: bool,
    chat: Chat | None,
    wider: Sequence[Evidence] = (),
) -> Detection:
    """All kept findings for `answer`, written from `evidence` for the conversation `turns`.

    The figure check reads only the evidence the answer was written from and the passenger's messages;
    the LLM verification also reads `wider`, a second retrieval with twice the passages.
    """
    findings = [
        Finding("figures", "unverifiable", f.figure.span, f.figure.start, f.figure.end, f.severity, f.justification)
        for f in check_figures(answer, [e.text for e in evidence] + list(turns), [e.unit for e in evidence])
    ]
    if unanswerable and not abstains(answer):
        findings.append(
            Finding(
                "abstention",
                "false acceptance",
                answer,
                0,
                len(answer),
                5,
                "the law provided does not cover this question, yet the answer does not say so",
            )
        )
    if chat is None:
        return Detection(tuple(findings))
    claims, failures = audit_claims(chat, answer, [*evidence, *wider], turns)
    for claim in claims:
        if claim.unsupported and claim.severity is not None and claim.severity >= KEPT_SEVERITY:
            start, end = _locate(claim.span, answer)
            findings.append(Finding("llm", claim.verdict, claim.span, start, end, claim.severity, claim.justification))
    stage_failures = tuple({"stage": failure.stage, "reason": failure.reason} for failure in failures)
    return Detection(tuple(findings), tuple(claims), stage_failures, llm_ran=True)


def _locate(span: str, answer: str) -> tuple[int | None, int | None]:
    start = answer.find(span)
    if start < 0:
        start = answer.lower().find(span.lower())
    return (start, start + len(span)) if start >= 0 else (None, None)
