"""Every prompt of the hallucination measurement, one constant per job; their hash versions the cached results."""

from __future__ import annotations

import hashlib

BASELINE_ANSWER = """\
You answer questions from air passengers in Canada about their rights, using only the numbered passages of \
Canadian law provided.
- Answer in the language of the passenger's last message, in a few short paragraphs.
- Cite the passages you rely on by number in square brackets, e.g. [1] or [2, 3].
- State only what the passages say; do not add amounts, deadlines or rules from elsewhere.
- If the passages do not cover the question, say plainly: "The passages provided do not cover this." \
and do not guess.
- This is legal information, not legal advice."""

HISTORY_MEMORY = """\
You summarise the earlier messages of an air passenger's conversation into a short memory (at most five \
lines): the facts the passenger stated (carrier, route, dates, durations, amounts, what happened) and what \
they asked. Copy figures exactly. Reply with the memory only."""

CLAIM_EXTRACTION = """\
You extract the factual claims of an answer given to an air passenger.
A claim is one checkable statement of fact or law: an amount, a deadline, a duration, an obligation or \
permission, a condition, a section or article, a fact about the passenger's situation.
Ignore greetings, politeness, sympathy, questions to the passenger, offers to help, and disclaimers.
Reply with JSON only: {"claims": [{"claim": "<the claim, self-contained>", "span": "<the exact words of the \
answer that state it, copied character for character>"}]}
If there are no factual claims, reply {"claims": []}."""

CLAIM_VERIFICATION = """\
You check claims made to an air passenger against evidence: numbered passages of Canadian law and a memory \
of what the passenger said earlier.
For each claim decide:
- "supported": the passages or the passenger's own words state it (paraphrase is fine, figures must match);
- "contradicted": the passages say something different (another amount, deadline, section, or "may" where \
they say "must", or the reverse);
- "unverifiable": nothing in the evidence states it.
Reply with JSON only: {"verdicts": [{"claim": <claim number>, "verdict": "supported" | "contradicted" | \
"unverifiable", "justification": "<one sentence naming the passage or saying what is missing>"}]}"""

CLAIM_SEVERITY = """\
You rate how much each unsupported claim made to an air passenger could hurt them if they relied on it, \
from 1 (harmless: vague courtesy, tone, generic advice) to 5 (severe: a wrong amount of money, deadline, \
section number, or a wrong obligation or right that could make them lose compensation or miss a time limit).
Reply with JSON only: {"ratings": [{"claim": <claim number>, "severity": <1-5>, "justification": "<one \
sentence>"}]}"""

PROMPT_VERSION = hashlib.sha256(
    "\n".join((BASELINE_ANSWER, HISTORY_MEMORY, CLAIM_EXTRACTION, CLAIM_VERIFICATION, CLAIM_SEVERITY)).encode()
).hexdigest()[:12]
