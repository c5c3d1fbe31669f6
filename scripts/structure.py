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
    def resolve(path, here):
        """The module a path names, or None (external or the module itself)."""
        segs = path.strip(":").split("::")
        rest = []
        while segs and "::".join(segs) not in mods:
            rest.insert(0, segs.pop())
        target = "::".join(segs) if segs else None
        # A name a module re-exports (`pub use child::Name`) belongs to the child: a facade
        # is not a dependency of what it re-exports.
        seen = set()
        while target and rest and rest[0] in reexports.get(target, {}) and target not in seen:
            seen.add(target)
            target, rest = reexports[target][rest[0]], rest[1:]
        return target

    sources, reexports = {}, {}
    for m, p in mods.items():
        src = strip_comments(open(p, encoding="utf-8").read())
        src = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", src, flags=re.S)  # unit tests are not structure
        sources[m] = src
        here = m.split("::") if m != "crate" else []
        for head, names in re.findall(r"pub use\s+((?:crate::|self::)?(?:[a-z_][a-z0-9_]*::)+)\{?([^;}]*)\}?;", src):
            head = head[:-2]
            base = head[len("crate::"):] if head.startswith("crate::") else "::".join(here + [head.removeprefix("self::")])
            if base not in mods:
                continue
            for name in names.split(","):
                name = name.strip().split(" as ")[-1].strip()
                if name:
                    reexports.setdefault(m, {})[name] = base
    graph = {}
    for m, src in sources.items():
        here = m.split("::") if m != "crate" else []
        paths = re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)", src)
        for group in re.findall(r"crate::((?:[a-z_][a-z0-9_]*::)*)\{([^}]*)\}", src):
            paths += [group[0] + item.strip() for item in group[1].split(",") if item.strip()]
        for parent in re.findall(r"\bsuper::((?:[a-z_][a-z0-9_]*::)*[A-Za-z_][A-Za-z0-9_]*)", src):
            paths.append("::".join(here[:-1] + [parent]))  # the parent of foo::bar (bar.rs or bar/mod.rs) is foo
        # `use child::X` in a module names its own child module (2018 paths).
        for c, name in re.findall(r"\buse\s+([a-z_][a-z0-9_]*)::([A-Za-z_][A-Za-z0-9_]*)", src):
            if "::".join(here + [c]) in mods:
                paths.append("::".join(here + [c, name]))
        deps = {t for t in (resolve(x, here) for x in paths) if t and t != m}
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
        ("engram-core modules (crate::, super:: and child paths; re-exports followed)", rust_graph("crates/engram-core/src")),
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
