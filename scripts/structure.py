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
    base = os.path.join(ROOT, src_dir)
    mods = {}
    for p in files(src_dir, (".rs",)):
        rel = os.path.relpath(p, base)[:-3].split(os.sep)
        if rel[-1] in ("mod", "lib", "main"):
            rel = rel[:-1]
        if "bin" in rel or "tests" in rel:
            continue
        mods["::".join(rel) or "crate"] = p
    graph = {}
    for m, p in mods.items():
        src = strip_comments(open(p, encoding="utf-8").read())
        src = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", src, flags=re.S)  # unit tests are not structure
        paths = re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", src)
        for group in re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*)\{([^}]*)\}", src):
            paths += [group[0] + item.strip().split("::")[0] for item in group[1].split(",") if item.strip()]
        here = m.split("::") if m != "crate" else []
        for parent in re.findall(r"\bsuper::((?:[a-z_][a-z0-9_]*::)*[a-z_][a-z0-9_]*)", src):
            paths.append("::".join(here[:-1] + [parent]))  # the parent of foo::bar (bar.rs or bar/mod.rs) is foo
        deps = set()
        for path in paths:
            segs = path.strip(":").split("::")
            while segs and "::".join(segs) not in mods:
                segs.pop()
            target = "::".join(segs) if segs else None
            if target and target != m:
                deps.add(target)
        graph[m] = deps
    return graph


def ts_graph(dirs):
    nodes = {}
    for d in dirs:
        for p in files(d, (".ts", ".tsx", ".mts")):
            nodes[os.path.relpath(p, ROOT)] = p
    graph = {}
    for name, p in nodes.items():
        src = strip_comments(open(p, encoding="utf-8").read())
        specs = re.findall(r"""(?:from|import)\s*\(?\s*["'](\.{1,2}/[^"']+)["']""", src)
        deps = set()
        for s in specs:
            cand = os.path.normpath(os.path.join(os.path.dirname(p), s))
            stem = re.sub(r"\.(m?js|ts)$", "", cand)
            for c in (stem + ".ts", stem + ".tsx", stem + ".mts", os.path.join(stem, "index.ts")):
                r = os.path.relpath(c, ROOT)
                if r in nodes and r != name:
                    deps.add(r)
                    break
        graph[name] = deps
    return graph


def main():
    print(f"# structure of {ROOT}")
    groups = [("Rust (crates/*/src)", "crates", (".rs",)), ("TypeScript (pkg/src, worker/src, www/src)", None, (".ts", ".tsx"))]
    for title, sub, exts in groups:
        paths = list(files(sub, exts)) if sub else [p for d in ("pkg/src", "worker/src", "www/src") for p in files(d, exts)]
        if sub:
            paths = [p for p in paths if f"{os.sep}src{os.sep}" in p]
        sized = sorted(((lines(p), os.path.relpath(p, ROOT)) for p in paths), reverse=True)
        total = sum(n for n, _ in sized)
        print(f"\n## largest files, {title}: {len(sized)} files, {total} lines")
        for n, p in sized[:TOP]:
            print(f"{n:6d}  {p}")
    for title, graph in [
        ("engram-core modules (crate:: and super:: paths)", rust_graph("crates/engram-core/src")),
        ("pkg/src files (relative imports)", ts_graph(["pkg/src"])),
        ("worker/src files (relative imports)", ts_graph(["worker/src"])),
    ]:
        cycles = sccs(graph)
        edges = sum(len(v) for v in graph.values())
        print(f"\n## import cycles, {title}: {len(graph)} nodes, {edges} edges, {len(cycles)} cycles")
        for c in cycles:
            print(f"  {len(c)} in a cycle: {', '.join(c)}")


if __name__ == "__main__":
    main()
