"""Fit the static table to the full model's sentence vectors (tokenlearn-style).

model2vec's distillation gives each vocabulary token the vector the full model gives that
token alone. A sentence is then the mean of its tokens' rows — but the full model reads the
token in context, so the mean of isolated-token vectors is a rough stand-in (55 % of the full
model's English recall@10 on the chatterbot questions). Here the rows are trained so that the
mean of a text's rows points where the full model's vector of that text points: a
bag-of-tokens regression onto the teacher, on texts no one here wrote and that are not the
evaluation data (corpora.py), plus every row on its own held to its distilled direction, so
rows the texts never show keep their meaning.

The student is exactly what the core computes at run time — rows looked up, averaged,
normalized — so nothing learned is lost on the way to the `.engemb` table.
"""

import time

import numpy as np


def token_ids(tokenizer, texts, unk):
    """WordPiece ids of each text, [UNK] dropped, at most 512 (as the core does)."""
    out = []
    for enc in tokenizer.encode_batch_fast(texts, add_special_tokens=False):
        out.append([x for x in enc.ids if x != unk][:512])
    return out


def fit_rows(init, text_ids, teacher, unk):
    """Step 4: fit the table's rows — each text's rows to the teacher's vector of it, and
    each row alone to its distilled direction (so rows no text shows keep their meaning).

    init: (V, D) distilled rows in the fitting space; text_ids: token ids per text;
    teacher: (N, D) the teacher's vectors of the texts in the same space. The [UNK] row is
    zeroed: like model2vec, the embedder skips [UNK] tokens.
    """
    unit = lambda m: m / (np.linalg.norm(m, axis=1, keepdims=True) + 1e-32)
    anchors = [i for i in range(init.shape[0]) if i != unk and np.linalg.norm(init[i]) > 0]
    rows = [[i] for i in anchors] + text_ids
    targets = np.concatenate([unit(init[anchors]), unit(teacher)]).astype(np.float32)
    matrix = fit_table(init, rows, targets)
    if unk is not None:
        matrix[unk] = 0.0
    return matrix


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
