#!/usr/bin/env python3
"""No file-to-file circle in any crate: the graph of which source file
names which (`use` paths and paths in code; an item named through a
re-export counts as a use of the file that defines it; test modules,
comments and `mod` declarations left out), as a module-dependency tool
sees it. Prints each cycle with the paths that make it (EDGES=1: every
edge of it) and exits 1 if there is one.

    python3 deploy/module-cycles.py [ROOT]"""
import os, re, sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
found = 0

def strip(text):
    m = re.search(r'#\[cfg\(test\)\]\s*mod \w+\s*\{', text)
    text = text[:m.start()] if m else text
    return re.sub(r'//[^\n]*', '', text)

def mod_path(src, path):
    rel = os.path.relpath(path, src)[:-3].split(os.sep)
    if rel[-1] in ('lib', 'main', 'mod'):
        rel = rel[:-1]
    return tuple(rel)

def expand(text):
    """Every path a `use` or expression names: (prefix parts, item)."""
    out = []
    for prefix, inner in re.findall(r'\b((?:crate|super|self|\w+)(?:::\w+)*)::\{([^}]*)\}', text):
        for item in re.split(r'[,\s]+', inner):
            item = item.split(' as ')[0]
            if item == 'self':
                out.append(prefix.split('::'))
            elif re.fullmatch(r'\w+(::\w+)*', item or ''):
                out.append(prefix.split('::') + item.split('::'))
    for path in re.findall(r'\b(\w+(?:::\w+)+)(?![\w:])', text):
        out.append(path.split('::'))
    return out

for crate in ['games', 'db-format', 'check', 'worker', 'coordinator', 'proto', 'tablebase', 'serve', '.']:
    src = os.path.join(root, crate, 'src')
    if not os.path.isdir(src):
        continue
    files = {}
    for dp, _, fs in os.walk(src):
        for f in fs:
            if f.endswith('.rs'):
                p = os.path.join(dp, f)
                files[mod_path(src, p)] = p
    texts = {m: strip(open(p).read()) for m, p in files.items()}

    def absolute(m, parts):
        """The path from the crate root, or None for another crate."""
        if parts[0] == 'crate':
            return parts[1:]
        if parts[0] in ('super', 'self'):
            base = list(m)
            while parts and parts[0] in ('super', 'self'):
                if parts[0] == 'super':
                    base = base[:-1]
                parts = parts[1:]
            return base + parts
        if m + (parts[0],) in files:  # a child module of m
            return list(m) + parts
        return None

    reexports = {m: {} for m in files}
    for m, text in texts.items():
        for stmt in re.findall(r'pub(?:\([\w:]+\))? use ([^;]+);', text):
            for parts in expand(stmt):
                a = absolute(m, parts)
                if a:
                    reexports[m][a[-1]] = a

    def resolve(a, depth=0):
        for n in range(len(a), -1, -1):
            module = tuple(a[:n])
            if module in files:
                rest = a[n:]
                if rest and depth < 10 and rest[0] in reexports[module]:
                    return resolve(reexports[module][rest[0]] + rest[1:], depth + 1)
                return module

    edges = {m: set() for m in files}
    why = {}
    for m, text in texts.items():
        body = re.sub(r'pub(?:\([\w:]+\))? use [^;]+;', '', text)  # re-exports are no use
        for parts in expand(body):
            a = absolute(m, parts)
            if a is None:
                continue
            target = resolve(a)
            if target is not None and target != m:
                edges[m].add(target)
                why.setdefault((m, target), '::'.join(parts))

    index, low, stack, on, counter = {}, {}, [], set(), [0]
    sys.setrecursionlimit(10000)

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                strong(w)
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
                global found
                found += 1
                print(crate, 'cycle:', ' '.join('/'.join(c) or '(root)' for c in sorted(comp)))
                if os.environ.get('EDGES'):
                    for a in comp:
                        for b in edges[a]:
                            if b in comp:
                                print('   ', '/'.join(a) or '(root)', '->', '/'.join(b) or '(root)', why.get((a, b), ''))

    for v in list(edges):
        if v not in index:
            strong(v)

if found:
    print(f'module-cycles: {found} circle(s) of files; break each by moving what both sides use into a file of its own', file=sys.stderr)
    sys.exit(1)
print('module-cycles: no file-to-file circle in any crate', file=sys.stderr)
