"""check_circles.py: include circles between source files, for
check_layering.py. A circle is a set of modules whose implementations use
each other, directly or through others: the strongly connected components
(more than one module) of the graph in which

- a module is a source file without its extension (x.c and x.h are one);
- an edge goes from module A to module B when A's implementation (a .c,
  .cc, .cu or .py file) includes B's header or imports B.

Headers that include other headers for their types do not make edges: a
declaration needing a type is a one-way dependency; a circle is two
implementations calling into each other, which is what makes a change to
one a change to the other. tests/ and third-party code are left out.

The circles that exist are listed in ALLOWED with the reason each stays;
any other circle, a listed one that grew, or a listed one that is gone (so
the list shrinks with the code) is an error.
"""
import os
import re

IMPLEMENTATION = re.compile(r"\.(c|cc|cpp|cu|py)$")
HEADER = re.compile(r"\.(h|hpp|cuh)$")
C_INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
PY_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+\(?([\w, ]+)|import\s+([\w.]+))")
SKIP = ("tests/", "third_party/")

# The circles allowed to stay, each with why. A key is the sorted modules.
ALLOWED = {
    ("engine/uci/cf_uci_load", "engine/uci/cf_uci_queue"):
        "a load that ends runs the commands that waited for it (cf_uci_pump), and a "
        "waiting command that needs the network starts its load (cf_uci_start_load): "
        "one protocol in two files",
    ("training/datagen", "training/datagen_dask"):
        "the Dask path ships datagen's game loop to the workers, and datagen's "
        "--scheduler imports the Dask path only when asked (no Dask otherwise)",
}


def module(path):
    return os.path.splitext(path)[0]


def _resolve_python(src, m, files):
    """The tracked .py files an import line (its match m) names from src."""
    here = os.path.dirname(src)
    if m.group(3):
        return [t for t in [_find_module(m.group(3), [here, "python"], src, files)] if t]
    name, names = m.group(1), [n.split()[0] for n in m.group(2).split(",") if n.strip()]
    if not name.startswith("."):
        t = _find_module(name, [here, "python"], src, files)
        return [t] if t else []
    # A relative import: one dot is src's package, each more dot a level up.
    dots = len(name) - len(name.lstrip("."))
    base = here
    for _ in range(dots - 1):
        base = os.path.dirname(base)
    rest = name.lstrip(".")
    if rest:
        t = _find_module(rest, [base], src, files)
        return [t] if t else []
    # from . import a, b: the modules a and b of the package
    return [t for t in (_find_module(n, [base], src, files) for n in names) if t]


def _find_module(name, bases, src, files):
    parts = name.split(".")
    for base in bases:
        for n in range(len(parts), 0, -1):
            stem = os.path.join(base, *parts[:n])
            for cand in (stem + ".py", os.path.join(stem, "__init__.py")):
                if cand in files and cand != src:
                    return cand
    return None


def _resolve_c(src, inc, files):
    for cand in (inc, os.path.normpath(os.path.join(os.path.dirname(src), inc))):
        if cand in files and HEADER.search(cand):
            return cand
    return None


def graph(root, names):
    """{module: set of modules its implementation uses}."""
    files = set(names)
    g = {}
    for src in sorted(files):
        if src.startswith(SKIP) or "/third_party/" in src or not IMPLEMENTATION.search(src):
            continue
        me = module(src)
        edges = g.setdefault(me, set())
        try:
            with open(os.path.join(root, src), encoding="utf-8", errors="replace") as f:
                lines = f.readlines()
        except OSError:
            continue
        for line in lines:
            if src.endswith(".py"):
                m = PY_IMPORT.match(line)
                targets = _resolve_python(src, m, files) if m else []
            else:
                m = C_INCLUDE.match(line)
                targets = [_resolve_c(src, m.group(1), files)] if m else []
            edges.update(module(t) for t in targets if t and module(t) != me)
    return g


def circles(g):
    """The strongly connected components of g with more than one module,
    each a sorted tuple (Tarjan's algorithm, without recursion)."""
    index, low, on_stack, stack, out = {}, {}, set(), [], []
    counter = 0
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter
                    counter += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on_stack:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(tuple(sorted(comp)))
    return sorted(out)


def _loop(g, comp):
    """One closed path through comp's first module, for the message."""
    members, first = set(comp), comp[0]
    prev, queue = {first: None}, [first]
    while queue:
        v = queue.pop(0)
        for w in sorted(g.get(v, ())):
            if w == first:
                path = [v]
                while prev[path[-1]] is not None:
                    path.append(prev[path[-1]])
                return " -> ".join([first] + path[::-1][1:] + [first])
            if w in members and w not in prev:
                prev[w] = v
                queue.append(w)
    return " <-> ".join(comp)


def check(root, names, allowed=None):
    """Problems with the circles of root's sources, one line each."""
    allowed = ALLOWED if allowed is None else allowed
    g = graph(root, names)
    found = circles(g)
    bad = []
    for comp in found:
        if comp in allowed:
            continue
        grown = [a for a in allowed if set(a) < set(comp)]
        what = f"a listed circle grew ({' <-> '.join(grown[0])})" if grown else "a new include circle"
        bad.append(f"{what}: {_loop(g, comp)} (move the helper that closes it to the file "
                   f"that owns it; tests/layering/check_circles.py lists the allowed ones)")
    for comp in allowed:
        if comp not in found and not any(set(comp) < set(f) for f in found):
            bad.append(f"the allowed circle {' <-> '.join(comp)} is gone: take it out of "
                       f"ALLOWED in tests/layering/check_circles.py")
    return bad, found
