#!/usr/bin/env python3
"""Print the structure figures of the repository (or of a checkout given as the argument):
the largest Rust and TypeScript files, and the cycles of three import graphs — the core's
modules (`crate::…` paths in crates/engram-core/src) and the TypeScript files of pkg/src and
worker/src (relative imports, `import type` included). A cycle is a strongly connected
component of more than one module. Rerun on an old tree to compare:

    git archive 0dbcd4e | tar -x -C /tmp/before && python3 scripts/structure.py /tmp/before
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))
TOP = 12


def files(sub, exts):
    base = os.path.join(ROOT, sub)
    for d, dirs, names in os.walk(base):
        dirs[:] = [x for x in dirs if x not in ("node_modules", "dist", "target", "pkg-wasm")]
        for n in names:
            if n.endswith(exts) and not n.endswith(".d.ts"):
                yield os.path.join(d, n)


def lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def strip_comments(src):
    src = re.sub(r"/\*.*?\*/", "", src, flags=re.S)
    return re.sub(r"//[^\n]*", "", src)


def sccs(graph):
    """Tarjan's strongly connected components of more than one node, each sorted."""
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def rust_graph(src_dir):
    """File-level graph of one crate: a node per source file (its module path), an edge for
    every module a file names — `use crate::…`, an inline `crate::a::b::f()` path, `super::…`,
    `self::…` and `use child::…` — resolved to the file of the longest module prefix, and through
    `pub use` re-exports to the file that defines the name: a face (a mod.rs or lib.rs that
    hands its children's names on) is not a dependency of what it re-exports, nor is the
    re-export an import of the face. `mod` declarations
    only place files in the tree (a parent declaring its child is not an import); unit tests
    (`#[cfg(test)] mod tests`, tests.rs) are not structure."""
    base = os.path.join(ROOT, src_dir)
    mods = {}
    for p in files(src_dir, (".rs",)):
        rel = os.path.relpath(p, base)[:-3].split(os.sep)
        if rel[-1] in ("mod", "lib", "main"):
            rel = rel[:-1]
        if "bin" in rel or "tests" in rel:
            continue
        mods["::".join(rel) or "crate"] = p

    def resolve(segs):
        segs = list(segs)
        while segs and "::".join(segs) not in mods:
            segs.pop()
        return "::".join(segs) if segs else "crate"

    def expand(prefix, body):
        """`a::{b, c::{d, e}}` → a::b, a::c::d, a::c::e (prefix already split)."""
        out, depth, cur = [], 0, ""
        for ch in body + ",":
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if ch == "," and depth == 0:
                item = cur.strip()
                cur = ""
                if not item:
                    continue
                m = re.match(r"^((?:[A-Za-z_][A-Za-z0-9_]*::)*)\{(.*)\}$", item, re.S)
                if m:
                    out += expand(prefix + [x for x in m.group(1).split("::") if x], m.group(2))
                else:
                    out.append(prefix + item.split(" as ")[0].strip().split("::"))
            else:
                cur += ch
        return out

    def absolute(segs, here):
        """A path as module segments from the crate root, or None (another crate, std)."""
        segs = [x.strip() for x in segs if x.strip()]
        if not segs:
            return None
        if segs[0] == "crate":
            return segs[1:]
        if segs[0] in ("super", "self"):
            cur = list(here)
            while segs and segs[0] in ("super", "self"):
                if segs.pop(0) == "super":
                    cur = cur[:-1]
            return cur + segs
        if "::".join(here + [segs[0]]) in mods:
            return here + segs  # `use child::X`
        return None

    def parse_use(body):
        """The paths one `use` statement's body names (groups expanded)."""
        body = re.sub(r"\s+", " ", body).strip()
        if body.startswith("{"):
            return expand([], body[1:-1])
        mm = re.match(r"^((?:[A-Za-z_][A-Za-z0-9_]*::)+)\{(.*)\}$", body, re.S)
        if mm:
            return expand([x for x in mm.group(1).split("::") if x], mm.group(2))
        return [body.split(" as ")[0].split("::")]

    sources, reexports = {}, {}
    for m, p in mods.items():
        src = strip_comments(open(p, encoding="utf-8").read())
        src = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", src, flags=re.S)
        src = re.sub(r'"(?:[^"\\]|\\.)*"', '""', src)  # string literals are not paths
        here = m.split("::") if m != "crate" else []
        for body in re.findall(r"\bpub(?:\([^)]*\))?\s+use\s+([^;]+);", src):
            for segs in parse_use(body):
                full = absolute(segs, here)
                if full and full[-1] != "*":
                    reexports.setdefault(m, {})[full[-1]] = full
        sources[m] = re.sub(r"\bpub(?:\([^)]*\))?\s+use\s+[^;]+;", "", src)

    def target(full):
        """The file that defines what `full` names, following re-exports."""
        seen = set()
        while True:
            t = resolve(full)
            rest = full[len(t.split("::")):] if t != "crate" else full
            if rest and rest[0] in reexports.get(t, {}) and (t, rest[0]) not in seen:
                seen.add((t, rest[0]))
                full = reexports[t][rest[0]] + rest[1:]
                continue
            return t

    graph = {}
    for m, src in sources.items():
        here = m.split("::") if m != "crate" else []
        paths = [segs for body in re.findall(r"\buse\s+([^;]+);", src) for segs in parse_use(body)]
        paths += [x.split("::") for x in re.findall(r"\b((?:crate|super|self)(?:::[A-Za-z_][A-Za-z0-9_]*)+)", src)]
        deps = set()
        for segs in paths:
            full = absolute(segs, here)
            if full is None:
                continue
            t = target(full)
            if t != m:
                deps.add(t)
        graph[m] = deps
    return graph


def ts_graph(dirs):
    nodes = {}
    for d in dirs:
        for p in files(d, (".ts", ".tsx", ".mts", ".js", ".mjs")):
            nodes[os.path.relpath(p, ROOT)] = p
    graph = {}
    for name, p in nodes.items():
        src = strip_comments(open(p, encoding="utf-8").read())
        specs = re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""", src)
        deps = set()
        for s in specs:
            cand = os.path.normpath(os.path.join(os.path.dirname(p), s))
            stem = re.sub(r"\.(m?js|ts)$", "", cand)
            for c in (stem + ".ts", stem + ".tsx", stem + ".mts", stem + ".js", stem + ".mjs", os.path.join(stem, "index.ts")):
                r = os.path.relpath(c, ROOT)
                if r in nodes and r != name:
                    deps.add(r)
                    break
        graph[name] = deps
    return graph


FILE_LIMIT = 400  # a hand-written file past this is reported; past FILE_LIMIT * 1.15 it fails
FOLDER_LIMIT = 2000  # lines of a folder of a crate's or package's sources, subfolders included


def generated(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        head = f.read(600).lower()
    return "generated by" in head or "@generated" in head


def main():
    print(f"# structure of {ROOT}")
    failures = []
    sources = [p for p in files("crates", (".rs",)) if f"{os.sep}src{os.sep}" in p]
    sources += [p for d in ("pkg/src", "worker/src", "www/src") for p in files(d, (".ts", ".tsx", ".js", ".mjs"))]
    sized = sorted(((lines(p), os.path.relpath(p, ROOT)) for p in sources), reverse=True)
    print(f"\n## largest source files: {len(sized)} files, {sum(n for n, _ in sized)} lines")
    for n, p in sized[:TOP]:
        note = " (generated)" if generated(os.path.join(ROOT, p)) else ""
        print(f"{n:6d}  {p}{note}")
    for n, p in sized:
        if n > FILE_LIMIT and not generated(os.path.join(ROOT, p)):
            print(f"  over {FILE_LIMIT} lines: {p} ({n})")
            if n > FILE_LIMIT * 1.15:
                failures.append(f"{p}: {n} lines, a hand-written file over {int(FILE_LIMIT * 1.15)}")
    folders = {}
    for n, p in sized:
        if generated(os.path.join(ROOT, p)):
            continue
        parts = p.split("/")
        top = parts.index("src") + 1
        for i in range(top + 1, len(parts)):
            d = "/".join(parts[:i])
            folders[d] = folders.get(d, 0) + n
    big = sorted(((n, d) for d, n in folders.items()), reverse=True)
    print(f"\n## largest folders (hand-written lines, subfolders included)")
    for n, d in big[:TOP]:
        print(f"{n:6d}  {d}/")
    for n, d in big:
        if n > FOLDER_LIMIT:
            failures.append(f"{d}/: {n} lines, a folder over {FOLDER_LIMIT}")
    graphs = [(f"{c} modules (file level)", rust_graph(f"crates/{c}/src"))
              for c in sorted(os.listdir(os.path.join(ROOT, "crates"))) if os.path.isdir(os.path.join(ROOT, "crates", c, "src"))]
    graphs += [(f"{d} files (relative imports)", ts_graph([d])) for d in ("pkg/src", "worker/src", "www/src")]
    for title, graph in graphs:
        cycles = sccs(graph)
        edges = sum(len(v) for v in graph.values())
        print(f"\n## import cycles, {title}: {len(graph)} nodes, {edges} edges, {len(cycles)} cycles")
        for c in cycles:
            print(f"  {len(c)} in a cycle: {', '.join(c)}")
            failures.append(f"{title}: a cycle of {len(c)}: {', '.join(c)}")
    if failures:
        print("\n## FAILED")
        for f in failures:
            print(f"  {f}")
        sys.exit(1)
    print("\nok: no import cycles, no file or folder past its limit")


if __name__ == "__main__":
    main()
