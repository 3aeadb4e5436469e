"""A small deterministic encoder for tests of ranking logic: no model file, no ONNX, a vector in microseconds.

Each text becomes its hashed bag of words and word pairs, so texts that share words are near and texts that share
none are orthogonal: enough for the engine's gathering, fusion, gates and cuts to be exercised for real, never a
measure of retrieval quality (the end-to-end tests keep the shipped encoders for that).
"""

from __future__ import annotations

import hashlib

import numpy as np

from foundation.text import words

DIMENSIONS = 256


class FakeEncoder:
    model_id = "fake-hashed-words-256"

    def passages(self, texts: list[str]) -> np.ndarray:
        return np.array([_vector(text) for text in texts], dtype=np.float32).reshape(len(texts), DIMENSIONS)

    def queries(self, texts: list[str], max_tokens: int = 0) -> np.ndarray:
        return self.passages(texts)  # hashed words have no cut


def _vector(text: str) -> np.ndarray:
    vector = np.zeros(DIMENSIONS, dtype=np.float32)
    tokens = words(text)
    for feature in [*tokens, *(f"{a} {b}" for a, b in zip(tokens, tokens[1:], strict=False))]:
        digest = hashlib.blake2b(feature.encode(), digest_size=4).digest()
        index = int.from_bytes(digest[:3], "big") % DIMENSIONS
        vector[index] += 1.0 if digest[3] % 2 else -1.0
    norm = np.linalg.norm(vector)
    if norm == 0:  # a text without words points nowhere in particular, but still has unit length
        vector[0], norm = 1.0, 1.0
    return vector / norm
