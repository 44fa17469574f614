#!/usr/bin/env python3
"""Where each module's public types live, and which public names no other module uses.

A reader finds a public type by its name: `Sources/M/.../Name.swift`. This lists, per
module, the public types declared at the top level of a file named after something
else (nested types and extensions do not count; `Type+Concern.swift` files hold
extensions, so a type declared in one is elsewhere too), each with the one-line reason
REASONS gives it, and counts them against all the module's public types.

    scripts/type-files.py                the types elsewhere, module by module, and the count
    scripts/type-files.py --check        exit 1 when a type of MODULES elsewhere has no reason,
                                         or more than 1 in 10 of MODULES' public types live
                                         elsewhere
    scripts/type-files.py --undocumented M  public declarations of M (and cases of its public
                                         enums, requirements of its public protocols) with no
                                         `///` comment; witnesses of the standard library's
                                         protocols and a protocol's default implementations
                                         take their documentation from the protocol, and an
                                         init that only stores its arguments from the
                                         properties
    scripts/type-files.py --unused [M..] public declarations of M (default: MODULES) whose name
                                         no other module's code, no test and no plugin guide
                                         mentions: candidates for `internal` (verify by building)

Names are read as text (comments left out, as scripts/module-graph.py reads imports;
strings kept, for interpolations and the scaffold's templates), so a name another module mentions for something else keeps a
declaration public: --unused errs towards public, and the build judges the rest.
Python 3 standard library only.
"""

import argparse
import importlib.util
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

_spec = importlib.util.spec_from_file_location("module_graph", os.path.join(os.path.dirname(os.path.abspath(__file__)), "module-graph.py"))
module_graph = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(module_graph)

# The modules whose files and access levels this script holds to the rule (--check,
# --unused without names). The others are listed, not judged.
MODULES = [
    "PeerBenchJSON", "PeerBenchSystem", "PeerBenchPlugin", "PeerBenchSockets", "PeerBenchTestbed",
    "PeerBenchCore", "PeerBenchAnalysis", "GnuTLSSupport", "ExecTransport", "UWBRanging", "RemoteLink",
    "peerbench",
]

# Why a public type lives in a file named after something else: (module, type) -> reason.
REASONS = {
    ("PeerBenchJSON", "JSONLayout"): "the writer's two-case layout parameter, beside the functions that take it",
    ("PeerBenchPlugin", "Delivery"): "the counts TransportMeasurement.delivery holds, beside the measurement",
    ("PeerBenchPlugin", "CellStatus"): "the values of TransportMeasurement.status, beside the measurement",
    ("PeerBenchPlugin", "DirectionalDelivery"): "what a workload other than the upload measured: WorkloadResults holds the three",
    ("PeerBenchPlugin", "FrameReport"): "what a workload other than the upload measured: WorkloadResults holds the three",
    ("PeerBenchPlugin", "FrameSchedule"): "what a workload other than the upload measured: WorkloadResults holds the three",
    ("PeerBenchTestbed", "AirCounters"): "one direction's half of LinkAirCounters",
    ("PeerBenchTestbed", "LinkMode"): "the three kinds of testbed, beside the Testbed protocol",
    ("PeerBenchCore", "Isolation"): "CellExecutor's two-case setting of where the plugin runs",
    ("PeerBenchCore", "FieldAnswer"): "the three answers FieldPrompter.ask returns",
    ("PeerBenchCore", "RepetitionJudgeFactory"): "the type of MatrixRun's judge parameter, beside it",
    ("GnuTLSSupport", "PSKLookup"): "what PSKServerLookup's key callback did, beside the callback",
    ("RemoteLink", "ControlErrorCode"): "the codes of ControlMessage's ERROR, beside the message",
    ("UWBRanging", "TokenChannelKind"): "the built-in TokenChannels by name, beside the protocol",
}

MODIFIERS = r"(?:(?:public|open|final|indirect|nonisolated|static|override|required|convenience|mutating|nonmutating|dynamic|lazy)\s+)*"
TYPE_DECL = re.compile(r"^(\s*)(?:@[\w.]+(?:\([^)]*\))?\s+)*(public|open)\s+" + MODIFIERS + r"(struct|class|enum|protocol|actor|typealias)\s+(\w+)", re.M)
PUBLIC_DECL = re.compile(
    r"(?:@[\w.]+(?:\([^)]*\))?\s+)*\b(public|open)\s+" + MODIFIERS
    + r"(?:(struct|class|enum|protocol|actor|typealias|func|var|let|case)\s+(`?\w+`?|[^\s(<]+)|(init|subscript)\b)")
IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def swift_files(root, path):
    for folder, _, files in sorted(os.walk(os.path.join(root, path))):
        for f in sorted(files):
            if f.endswith(".swift"):
                yield os.path.join(folder, f)


def depths(code):
    """The brace depth at the start of each line of `code` (comments and strings out)."""
    out, depth = [], 0
    for line in code.split("\n"):
        out.append(depth)
        depth += line.count("{") - line.count("}")
    return out


def top_level_types(code):
    """(name, kind) of each public type declared at brace depth 0."""
    d = depths(code)
    found = []
    for m in TYPE_DECL.finditer(code):
        line = code.count("\n", 0, m.start(2))
        if d[line] == 0:
            found.append((m.group(4), m.group(3)))
    return found


def source_modules(root):
    """{module: path} for the Swift source targets under Sources/ and Benchmarks/."""
    targets = module_graph.read_targets(root)
    return {n: t["path"] for n, t in sorted(targets.items())
            if t["kind"] in ("target", "executableTarget") and t["path"].startswith(("Sources", "Benchmarks"))}


def read_code(path, keep_strings=False, cache={}):
    """A Swift file without comments; without its strings too unless `keep_strings` (a
    name in an interpolation or in the scaffold's templates is a use)."""
    if (path, keep_strings) not in cache:
        cache[(path, keep_strings)] = module_graph.strip_comments(open(path).read(), keep_strings=keep_strings)
    return cache[(path, keep_strings)]


def placement(root):
    """{module: [(type, kind, file relative to root, at home)]}."""
    out = {}
    for name, path in source_modules(root).items():
        rows = []
        for f in swift_files(root, path):
            stem = os.path.basename(f)[:-len(".swift")]
            for t, kind in top_level_types(read_code(f)):
                rows.append((t, kind, os.path.relpath(f, root), stem == t))
        out[name] = rows
    return out


def report(root, check):
    status, counts = 0, {True: [0, 0], False: [0, 0]}
    for module, rows in placement(root).items():
        if not rows:
            continue
        away = [r for r in rows if not r[3]]
        judged = module in MODULES
        counts[judged][0] += len(away)
        counts[judged][1] += len(rows)
        print("%-20s %3d of %3d elsewhere%s" % (module, len(away), len(rows), "" if judged else "  (not judged)"))
        for t, kind, f, _ in away:
            reason = REASONS.get((module, t))
            if reason is None and judged:
                status = 1
            print("    %-28s %-9s %s: %s" % (t, kind, f, reason or "(no reason)"))
    (away, total), (other_away, other_total) = counts[True], counts[False]
    print("MODULES: %d of %d public types elsewhere%s; the others: %d of %d"
          % (away, total, " (more than 1 in 10)" if away * 10 > total else "", other_away, other_total))
    if away * 10 > total:
        status = 1
    stale = [k for k in REASONS if not any(r[0] == k[1] and not r[3] for r in placement(root).get(k[0], []))]
    for module, t in stale:
        print("type-files: REASONS names %s.%s, which is no longer elsewhere" % (module, t), file=sys.stderr)
        status = 1
    return status if check else 0


# The plugin guide is the contract's reader: a name it shows is part of the contract
# even where no plugin of this package uses it yet.
GUIDES = ["docs/PLUGINS.md"]


def unused(root, modules):
    """Public declarations of `modules` whose name no other module, no test and no guide
    mentions."""
    paths = source_modules(root)
    mentioned = {}  # module -> names mentioned outside it
    idents = {n: set() for n in paths}
    for n, p in paths.items():
        for f in swift_files(root, p):
            idents[n].update(IDENT.findall(read_code(f, keep_strings=True)))
    tests = set()
    for f in swift_files(root, "Tests"):
        tests.update(IDENT.findall(read_code(f, keep_strings=True)))
    for g in GUIDES:
        tests.update(IDENT.findall(open(os.path.join(root, g)).read()))
    for n in paths:
        mentioned[n] = set().union(*(idents[o] for o in paths if o != n)) | tests
        # A type or constant a public signature of the module names (a parameter, a
        # result, a default value) must be public as long as that signature is.
        for f in swift_files(root, paths[n]):
            for line in read_code(f).split("\n"):
                if re.search(r"\b(public|open)\s", line):
                    mentioned[n].update(w for w in IDENT.findall(line.split("{")[0]) if w[0].isupper() or "." + w in line)
    count = 0
    for module in modules:
        for f in swift_files(root, paths[module]):
            code = read_code(f)
            for m in PUBLIC_DECL.finditer(code):
                kind, name = m.group(2) or m.group(4), (m.group(3) or m.group(4)).strip("`")
                if kind in ("init", "subscript", "case") or not IDENT.fullmatch(name):
                    continue  # inits and subscripts go with their type; operators are not found by name
                if name in mentioned[module]:
                    continue
                line = code.count("\n", 0, m.start(1)) + 1
                print("%s:%d: %s %s" % (os.path.relpath(f, root), line, kind, name))
                count += 1
    print("%d public declarations no other module, test or guide mentions" % count)
    return 0


# Members whose documentation is the protocol's: the standard library's witnesses.
WITNESSES = {"description", "debugDescription", "hash", "makeIterator", "rawValue", "allCases", "CodingKeys"}
WITNESS_INITS = re.compile(r"\binit\??\s*\((from decoder|rawValue|stringLiteral|integerLiteral|floatLiteral|booleanLiteral|nilLiteral|arrayLiteral|dictionaryLiteral)\b")


def undocumented(root, module):
    """(file, line, text) of each public name of `module` without a `///` comment."""
    path = source_modules(root)[module]
    protocols = {t for rows in [placement(root)[module]] for t, kind, _, _ in rows if kind == "protocol"}
    count = 0
    for f in swift_files(root, path):
        text = open(f).read()
        lines = text.split("\n")
        code = module_graph.strip_comments(text, keep_strings=False)
        # scopes: for each line, the innermost enclosing declaration's first line
        stack, opener, depth = [], [], 0
        masked = mask_lines(text)
        for i, line in enumerate(masked):
            opener.append(stack[-1] if stack else None)
            for c in line:
                if c == "{":
                    stack.append(i)
                elif c == "}" and stack:
                    stack.pop()
        for i, line in enumerate(masked):
            outer = lines[opener[i]] if opener[i] is not None else ""
            public_decl = re.search(r"\b(public|open)\s", line) and not re.match(r"^\s*(public\s+)?(import|extension)\b", line) and "public import" not in line
            in_public_type = re.search(r"\bpublic\s+(?:[a-z]+\s+)*(enum|protocol)\s", outer)
            case = in_public_type and in_public_type.group(1) == "enum" and re.match(r"^\s*(indirect\s+)?case\s", line)
            requirement = in_public_type and in_public_type.group(1) == "protocol" and re.match(r"^\s*(static\s+)?(func|var|init|associatedtype|subscript)\b", line)
            if not (public_decl or case or requirement):
                continue
            m = re.search(r"\b(?:func|var|let|case|struct|class|enum|protocol|typealias)\s+`?(\w+)", line)
            if m and m.group(1) in WITNESSES or WITNESS_INITS.search(line) or re.search(r"func\s+(==|<|\+|-)", line):
                continue
            if re.search(r"\binit\s*\(", line) and memberwise(masked, i):
                continue  # an init that only stores its arguments: the properties say what they are
            ext = re.match(r"^\s*extension\s+(\w+)", outer)
            if ext and ext.group(1) in protocols:
                continue  # a default implementation: the requirement's documentation
            j = i - 1
            while j >= 0 and re.match(r"^\s*@", lines[j]):
                j -= 1
            if j >= 0 and lines[j].lstrip().startswith("///"):
                continue
            if j >= 0 and lines[j].rstrip().endswith("*/"):
                continue
            print("%s:%d: %s" % (os.path.relpath(f, root), i + 1, lines[i].strip()))
            count += 1
    print("%d public names without a /// comment" % count)
    return 0


def memberwise(masked, i):
    """Whether the init declared at line i only stores each argument in the property of
    its name."""
    text = "\n".join(masked[i:])
    start = text.find("{")
    depth = 0
    for k in range(start, len(text)):
        depth += {"{": 1, "}": -1}.get(text[k], 0)
        if depth == 0:
            body = text[start + 1:k]
            break
    else:
        return False
    statements = [b.strip() for b in re.split(r"[\n;]", body) if b.strip()]
    return bool(statements) and all(re.fullmatch(r"self\.(\w+) = \1", b) for b in statements)


def mask_lines(text):
    """The lines of `text` with comments and string contents blanked (braces in them
    do not count)."""
    out, i, n = list(text), 0, len(text)

    def blank(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            blank(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            blank(i, j)
            i = j
        elif text[i] == '"' or (text[i] == "#" and text.startswith('"', i + 1)):
            h = 0
            while text.startswith("#", i + h):
                h += 1
            q = '"""' if text.startswith('"""', i + h) else '"'
            close = q + "#" * h
            j = i + h + len(q)
            while j < n and not text.startswith(close, j):
                j += 2 if text[j] == "\\" and h == 0 else 1
            j = min(n, j + len(close))
            blank(i + h + len(q), j - len(close))
            i = j
        else:
            i += 1
    return "".join(out).split("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", default=ROOT, help="the package's directory (default: this repository)")
    ap.add_argument("--check", action="store_true", help="exit 1 when a module of MODULES breaks the rule")
    ap.add_argument("--undocumented", metavar="MODULE", help="public names of MODULE without a /// comment")
    ap.add_argument("--unused", nargs="*", metavar="MODULE", help="public names no other module or test mentions")
    args = ap.parse_args()
    if args.undocumented:
        return undocumented(args.root, args.undocumented)
    if args.unused is not None:
        return unused(args.root, args.unused or MODULES)
    return report(args.root, args.check)


if __name__ == "__main__":
    sys.exit(main())
