#!/usr/bin/env python3
"""Folded stacks to a flame graph SVG, and perf's script output to folded stacks.

    perf record -F 499 --call-graph dwarf,16384 -p PID -o perf.data -- sleep 10
    perf script -i perf.data | scripts/flamegraph.py fold | swift-demangle --simplified > stacks.folded
    scripts/flamegraph.py svg "Title" < stacks.folded > graph.svg

`fold` turns perf's samples into one line per distinct stack ("thread;outer;…;inner COUNT",
offsets and library paths dropped); `svg` draws them: each frame a box as wide as the samples
it was on, callers below callees, the widest children first. Hovering a box names it and its
share. Plain Python, no packages (BENCHMARKS.md uses it for the server's profiles).
"""

import collections
import html
import re
import sys


def fold(lines):
    stacks = collections.Counter()
    thread, frames = None, []

    def flush():
        nonlocal thread, frames
        if thread is not None:
            stacks[";".join([thread] + frames[::-1])] += 1
        thread, frames = None, []

    for line in lines:
        if not line.strip():
            flush()
        elif not line.startswith((" ", "\t")):
            flush()
            thread = line.split()[0]
        else:
            parts = line.strip().split(None, 1)
            if len(parts) == 2:
                symbol = re.sub(r"\+0x[0-9a-f]+", "", parts[1])
                symbol = re.sub(r"\s*\([^()]*\)$", "", symbol).strip()
                frames.append(symbol.replace(";", ":"))
    flush()
    for stack, count in stacks.items():
        print(f"{stack} {count}")


def svg(title, lines, width=1600, row=17):
    root = {"children": {}, "count": 0}
    total = 0
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            continue
        stack, count = line.rsplit(" ", 1)
        count = int(count)
        total += count
        node = root
        node["count"] += count
        for frame in stack.split(";"):
            node = node["children"].setdefault(frame, {"children": {}, "count": 0})
            node["count"] += count
    boxes = []

    def walk(node, name, x, depth):
        boxes.append((name, x, depth, node["count"]))
        offset = x
        for child, sub in sorted(node["children"].items(), key=lambda item: -item[1]["count"]):
            walk(sub, child, offset, depth + 1)
            offset += sub["count"]

    walk(root, "all", 0, 0)
    depth = max(box[2] for box in boxes) + 1
    height = (depth + 2) * row + 30
    scale = (width - 20) / max(total, 1)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="monospace" font-size="11">',
        f'<rect width="100%" height="100%" fill="#fffdf6"/>',
        f'<text x="10" y="20" font-size="15">{html.escape(title)} ({total} samples)</text>',
    ]
    for name, x, level, count in boxes:
        w = count * scale
        if w < 1.0:
            continue
        left = 10 + x * scale
        top = height - (level + 1) * row - 5
        hue = (hash(name.split("(")[0]) % 40) + 10
        share = 100 * count / max(total, 1)
        label = html.escape(name)
        out.append(f'<g><title>{label} — {count} samples, {share:.1f}%</title>')
        out.append(f'<rect x="{left:.1f}" y="{top}" width="{w:.1f}" height="{row - 1}" fill="hsl({hue},85%,62%)" rx="2"/>')
        chars = int(w / 6.6)
        if chars >= 3:
            text = name if len(name) <= chars else name[: chars - 1] + "…"
            out.append(f'<text x="{left + 2:.1f}" y="{top + row - 5}">{html.escape(text)}</text>')
        out.append("</g>")
    out.append("</svg>")
    print("\n".join(out))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "fold":
        fold(sys.stdin)
    elif len(sys.argv) >= 3 and sys.argv[1] == "svg":
        svg(sys.argv[2], sys.stdin)
    else:
        sys.stderr.write(__doc__)
        sys.exit(2)
