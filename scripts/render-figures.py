#!/usr/bin/env python3
"""Chart renderer for `peerbench report` (the report's logic is in Swift; this only
hosts vl-convert, which embeds the Vega/Vega-Lite JavaScript engine).

    render-figures.py [--bundle OUT.js] [--scale S] SPEC.vl.json ...

Each NAME.vl.json (a Vega-Lite specification with its data inline) becomes NAME.svg
and NAME.png beside it. With --bundle, the offline Vega + Vega-Lite + vega-embed
JavaScript for the HTML page is written to OUT.js (cached per vl-convert version in
$XDG_CACHE_HOME/peerbench or ~/.cache/peerbench: building it takes seconds).

Exit status: 0 done; 1 a specification could not be rendered (named on stderr);
2 bad usage; 3 vl-convert-python is not installed.
"""
import argparse
import json
import os
import sys


def cached_bundle(vlc):
    """The JavaScript bundle, from the cache when this vl-convert version made one before."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    version = getattr(vlc, "__version__", "unknown")
    path = os.path.join(base, "peerbench", f"vega-bundle-{version}.js")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        pass
    bundle = vlc.javascript_bundle()
    try:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(bundle)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home only costs the next run a few seconds
    return bundle


def main():
    parser = argparse.ArgumentParser(description="Render Vega-Lite specs to SVG and PNG; write the page's JavaScript bundle.")
    parser.add_argument("specs", nargs="*", help="NAME.vl.json files")
    parser.add_argument("--bundle", help="write the offline vega-embed JavaScript bundle here")
    parser.add_argument("--scale", type=float, default=2.0, help="PNG scale factor (default 2: print resolution)")
    args = parser.parse_args()
    try:
        import vl_convert as vlc
    except ImportError:
        print("render-figures: the Python package vl-convert-python is not installed "
              "(python3 -m pip install vl-convert-python, or run scripts/setup.sh)", file=sys.stderr)
        return 3
    failed = 0
    for spec_path in args.specs:
        if not spec_path.endswith(".vl.json"):
            print(f"render-figures: {spec_path}: expected a NAME.vl.json file", file=sys.stderr)
            return 2
        stem = spec_path[: -len(".vl.json")]
        try:
            with open(spec_path, encoding="utf-8") as f:
                spec = json.load(f)
            svg = vlc.vegalite_to_svg(spec)
            # From the SVG rather than the spec: Vega runs once per figure, not twice.
            png = vlc.svg_to_png(svg, scale=args.scale)
            with open(stem + ".svg", "w", encoding="utf-8") as f:
                f.write(svg)
            with open(stem + ".png", "wb") as f:
                f.write(png)
        except Exception as e:  # one bad figure must not cost the others
            print(f"render-figures: {spec_path}: {e}", file=sys.stderr)
            failed += 1
    if args.bundle:
        try:
            bundle = cached_bundle(vlc)
            with open(args.bundle, "w", encoding="utf-8") as f:
                f.write(bundle)
        except Exception as e:
            print(f"render-figures: JavaScript bundle: {e}", file=sys.stderr)
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
