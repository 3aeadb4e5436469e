"""The answer a generative RAG assistant would write from the same passages the product shows."""

from __future__ import annotations

from collections.abc import Sequence

from eval.chat import Chat
from eval.claim_audit import Evidence
from eval.hallucination_prompts import BASELINE_ANSWER


def write_answer(chat: Chat, turns: Sequence[str], evidence: Sequence[Evidence]) -> str:
    """Raises StageFailure ("baseline") when the endpoint gives no usable answer."""
    earlier = "\n".join(f"- {turn}" for turn in turns[:-1])
    passages = "\n\n".join(f"[{number}] ({e.doc} {e.unit})\n{e.text}" for number, e in enumerate(evidence, 1))
    user = (
        (f"Earlier messages from the passenger:\n{earlier}\n\n" if earlier else "")
        + f"Passenger's message:\n{turns[-1]}\n\n"
        + f"Passages:\n{passages or '(no passages were found)'}"
    )
    return chat.ask("baseline", BASELINE_ANSWER, user, max_tokens=700)
