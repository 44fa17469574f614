#!/usr/bin/env python3
"""The module graph as the compiler sees it, and the layering rules it must keep.

Reads Package.swift's targets (name, path, dependencies) and the `import` lines of
each source target's Swift files, and prints, module by module, what each imports
of this package's own modules. Package.swift's dependencies are what SwiftPM builds
and links; the imports are what the compiler lets a file use.

    scripts/module-graph.py            the graph (docs/ARCHITECTURE.md shows it)
    scripts/module-graph.py --check    also applies the rules below; exit 1 on a breach
    scripts/module-graph.py --doc FILE exit 1 unless FILE shows the graph as printed now
    scripts/module-graph.py --update-doc FILE   put the graph as printed now into FILE
    scripts/module-graph.py --json     the graph as JSON (imports and declared dependencies)

--root DIR reads another package (the tests give it a small broken one). Python 3
standard library only. ModuleGraphTests (PeerBenchCoreTests) runs --check and --doc.
"""

import argparse
import json
import os
import re
import sys

# What each module may import of ours. A module not named here is judged by its
# group: a `...Transport` module (a new plugin from `swift package new-transport`)
# by TRANSPORT. Every import and every declared dependency must be in the set.
JSON_, SYSTEM, PLUGIN, STREAMS = "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin", "PeerBenchStreams"
SOCKETS, WORKLOADS, TESTBED = "PeerBenchSockets", "PeerBenchWorkloads", "PeerBenchTestbed"
CONTRACT = {JSON_, SYSTEM, PLUGIN}
# What a transport may build on besides the contract: the plugin kit.
KIT = {SOCKETS, WORKLOADS}
TRANSPORT = CONTRACT | KIT | {STREAMS, "GnuTLSSupport", "CPeerBenchSystem"}
ALLOWED = {
    JSON_: set(),
    SYSTEM: {JSON_, "CPeerBenchSystem"},
    PLUGIN: {JSON_, SYSTEM},
    SOCKETS: CONTRACT,
    WORKLOADS: CONTRACT,
    TESTBED: CONTRACT,
    STREAMS: CONTRACT | KIT,
    "PeerBenchCore": CONTRACT | {SOCKETS, TESTBED},
    "PeerBenchAnalysis": CONTRACT | {TESTBED, "PeerBenchCore"},
    # Only the GnuTLS wrapper sees GnuTLS's C API.
    "GnuTLSSupport": CONTRACT | {"CGnuTLS"},
    "TCPTransport": TRANSPORT - {"GnuTLSSupport"},
    "TLSTransport": TRANSPORT,
    "UDPTransport": TRANSPORT,
    # ngtcp2 and its crypto glue; GnuTLS only through GnuTLSSupport.
    "QUICTransport": TRANSPORT | {"CNgtcp2"},
    "UWBRanging": CONTRACT | KIT,
    "ExecTransport": CONTRACT | KIT,
    "LinkEmulation": CONTRACT | {TESTBED, "CLinkEmulation"},
    "RemoteLink": CONTRACT | {TESTBED, SOCKETS, "GnuTLSSupport", "CPeerBenchSystem"},
    "TransportScaffold": set(),
    "peerbench-scaffold": {"TransportScaffold"},
    "link-bench": CONTRACT | {TESTBED, "LinkEmulation"},
    "quic-bench": CONTRACT | {"QUICTransport"},
}
# Names in rule messages: why a module must not see another.
WHY = {
    "PeerBenchCore": "only the executable and the analysis see the run core",
    "PeerBenchAnalysis": "only the executable sees the analysis",
    "CGnuTLS": "GnuTLS's C API is GnuTLSSupport's alone",
    "CNgtcp2": "ngtcp2 is the QUIC plugin's alone",
    STREAMS: "byte-stream framing is for stream transports, not the contract",
    TESTBED: "a plugin sees the link only as the cell's ResolvedLink; the testbed contract is the run core's and the links'",
    "LinkEmulation": "a plugin or testbed sees the link only through PeerBenchPlugin",
    "RemoteLink": "a plugin sees the remote testbed only through PeerBenchPlugin",
}
# The executable wires every module together; tests are not layers.
UNRULED = {"peerbench"}

TARGET_CALL = re.compile(r"\.(target|executableTarget|testTarget|systemLibrary|plugin)\s*\(")
IMPORT = re.compile(
    r"^\s*(?:@\w+\s+)*(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_][A-Za-z0-9_]*)",
    re.M)


def strip_comments(text, keep_strings=True):
    """Swift source without // and /* */ comments; string literals (also multi-line
    and raw ones) kept, or emptied with keep_strings=False so that code a file only
    holds as text (the scaffold's templates) is not read as its own imports."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"' or (c == "#" and text.startswith('"', i + 1)):
            hashes = 0
            while text.startswith("#", i + hashes):
                hashes += 1
            quote = '"""' if text.startswith('"""', i + hashes) else '"'
            close = quote + "#" * hashes
            j = i + hashes + len(quote)
            while j < n and not text.startswith(close, j):
                j += 2 if text[j] == "\\" and hashes == 0 else 1
            end = min(n, j + len(close))
            out.append(text[i:end] if keep_strings else '""')
            i = end
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


def balanced(text, start, open_, close):
    """The text between text[start] (== open_) and its matching close, and the end index."""
    depth, i = 0, start
    while i < len(text):
        c = text[i]
        if c == '"':
            i = text.index('"', i + 1) + 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return text[start + 1:i], i
        i += 1
    raise ValueError("unbalanced %s in Package.swift" % open_)


def top_level_strings(array_text):
    """The string literals of an array's own elements, not of nested calls (.product(...))."""
    names, depth, i = [], 0, 0
    while i < len(array_text):
        c = array_text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == '"':
            end = array_text.index('"', i + 1)
            if depth == 0:
                names.append(array_text[i + 1:end])
            i = end
        i += 1
    return names


def read_targets(root):
    """{name: {"kind", "path", "dependencies"}} from Package.swift."""
    text = strip_comments(open(os.path.join(root, "Package.swift")).read())
    targets = {}
    for m in TARGET_CALL.finditer(text):
        body, _ = balanced(text, m.end() - 1, "(", ")")
        name = re.search(r'name:\s*"([^"]+)"', body).group(1)
        path = re.search(r'path:\s*"([^"]+)"', body)
        deps = []
        d = re.search(r"dependencies:\s*\[", body)
        if d:
            deps = top_level_strings(balanced(body, d.end() - 1, "[", "]")[0])
        kind = m.group(1)
        default = "Tests" if kind == "testTarget" else ("Plugins" if kind == "plugin" else "Sources")
        targets[name] = {"kind": kind, "path": path.group(1) if path else os.path.join(default, name),
                         "dependencies": deps}
    return targets


def read_imports(root, path):
    """Every module the Swift files under `path` import."""
    found = set()
    for folder, _, files in os.walk(os.path.join(root, path)):
        for f in files:
            if f.endswith(".swift"):
                found.update(IMPORT.findall(strip_comments(open(os.path.join(folder, f)).read(), keep_strings=False)))
    return found


def graph(root):
    """{module: {"imports", "declared"}} for the source targets (not tests, not plugins)."""
    targets = read_targets(root)
    ours = set(targets)
    out = {}
    for name, t in targets.items():
        if t["kind"] not in ("target", "executableTarget", "systemLibrary") or not t["path"].startswith(("Sources", "Benchmarks")):
            continue
        imports = set() if t["kind"] == "systemLibrary" else read_imports(root, t["path"])
        out[name] = {"imports": sorted(imports & ours), "declared": sorted(set(t["dependencies"]) & ours)}
    return out


def layered(g):
    """Module names, each after everything it imports (ties by name)."""
    order, placed = [], set()
    while len(order) < len(g):
        ready = sorted(n for n in g if n not in placed and all(i in placed or i not in g for i in g[n]["imports"]))
        if not ready:  # an import cycle: print the rest by name rather than loop
            ready = sorted(n for n in g if n not in placed)
        order.extend(ready)
        placed.update(ready)
    return order


def wrapped(head, names, width, limit=100):
    """`head` padded to `width`, then `names` comma-separated, wrapped under themselves."""
    lines, line = [], head.ljust(width)
    for k, name in enumerate(names):
        item = name + ("," if k < len(names) - 1 else "")
        if len(line) + len(item) > limit and line.strip() != head:
            lines.append(line.rstrip())
            line = " " * width
        line += item + " "
    lines.append(line.rstrip())
    return lines


def render(g):
    """The text docs/ARCHITECTURE.md shows: one line a module, what it imports of ours,
    each module after everything it imports."""
    modules = [n for n in layered(g) if n in g]
    width = max(len(n) for n in modules) + 2
    lines = []
    for n in modules:
        lines += wrapped(n, g[n]["imports"] or ["(nothing of ours)"], width)
    unused = [(n, sorted(set(g[n]["declared"]) - set(g[n]["imports"]))) for n in modules]
    unused = [(n, u) for n, u in unused if u]
    if unused:
        lines.append("")
        lines.append("declared in Package.swift but not imported (linked, not used by name):")
        for n, u in unused:
            lines += wrapped("  " + n, u, width + 2)
    return "\n".join(lines) + "\n"


def allowed(name):
    if name in ALLOWED:
        return ALLOWED[name]
    if name.endswith("Transport"):
        return TRANSPORT
    return None


GNUTLS_CALL = re.compile(r"\b(?:gnutls|GNUTLS)_\w+")
# CNgtcp2's header must include ngtcp2_crypto_gnutls.h, which includes gnutls.h, so
# an importer of CNgtcp2 could call GnuTLS without importing CGnuTLS: read the code.
GNUTLS_OWNER = "GnuTLSSupport"


def gnutls_uses(root, targets):
    """(module, file, name) for each GnuTLS C name in the code of a module not GnuTLSSupport."""
    out = []
    for name, t in sorted(targets.items()):
        if name == GNUTLS_OWNER or t["kind"] not in ("target", "executableTarget"):
            continue
        for folder, _, files in os.walk(os.path.join(root, t["path"])):
            for f in sorted(files):
                if f.endswith(".swift"):
                    code = strip_comments(open(os.path.join(folder, f)).read(), keep_strings=False)
                    for used in sorted(set(GNUTLS_CALL.findall(code))):
                        out.append((name, os.path.relpath(os.path.join(folder, f), root), used))
    return out


def breaches(g, root):
    """Every import or declared dependency a rule forbids, and every GnuTLS name used
    outside GnuTLSSupport, as sentences."""
    out = ["%s uses GnuTLS's %s (%s): only %s calls GnuTLS" % (m, used, f, GNUTLS_OWNER)
           for m, f, used in gnutls_uses(root, read_targets(root))]
    for n in sorted(g):
        if n in UNRULED or g[n]["imports"] == [] and g[n]["declared"] == [] and n not in ALLOWED:
            continue
        ok = allowed(n)
        if ok is None:
            out.append("%s has no rule: add it to ALLOWED in scripts/module-graph.py "
                       "(and to the graph in docs/ARCHITECTURE.md)" % n)
            continue
        for how, names in (("imports", g[n]["imports"]), ("declares a dependency on", g[n]["declared"])):
            for m in names:
                if m not in ok:
                    why = WHY.get(m, "not among what %s may see" % n)
                    out.append("%s %s %s: %s" % (n, how, m, why))
        for m in sorted(set(g[n]["imports"]) - set(g[n]["declared"])):
            out.append("%s imports %s without declaring it in Package.swift" % (n, m))
    return out


DOC_START = "<!-- module-graph: begin (scripts/module-graph.py) -->"
DOC_END = "<!-- module-graph: end -->"


def doc_block(path):
    text = open(path).read()
    if DOC_START not in text or DOC_END not in text:
        return None
    inner = text.split(DOC_START, 1)[1].split(DOC_END, 1)[0]
    return inner.strip("\n").removeprefix("```").removesuffix("```").strip("\n") + "\n"


def update_doc(path, text):
    """Replaces what FILE shows between the markers with `text`, fenced."""
    doc = open(path).read()
    head, rest = doc.split(DOC_START, 1)
    _, tail = rest.split(DOC_END, 1)
    open(path, "w").write(head + DOC_START + "\n```\n" + text + "```\n" + DOC_END + tail)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                    help="the package's directory (default: this repository)")
    ap.add_argument("--check", action="store_true", help="apply the layering rules; exit 1 on a breach")
    ap.add_argument("--doc", metavar="FILE", help="exit 1 unless FILE's module-graph block is the graph as printed now")
    ap.add_argument("--update-doc", metavar="FILE", help="put the graph as printed now between FILE's markers")
    ap.add_argument("--json", action="store_true", help="print the graph as JSON")
    args = ap.parse_args()
    g = graph(args.root)
    text = render(g)
    print(json.dumps(g, indent=2, sort_keys=True) if args.json else text, end="" if not args.json else "\n")
    status = 0
    if args.check:
        found = breaches(g, args.root)
        for b in found:
            print("module-graph: " + b, file=sys.stderr)
        status = 1 if found else 0
    if args.update_doc:
        update_doc(args.update_doc, text)
    if args.doc:
        shown = doc_block(args.doc)
        if shown != text:
            print("module-graph: %s does not show the graph as printed now: run "
                  "scripts/module-graph.py --update-doc %s" % (args.doc, args.doc), file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
