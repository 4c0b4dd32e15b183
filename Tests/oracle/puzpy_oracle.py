"""An independent check of Crossmate's .puz reader and writer against puzpy.

1. Every .puz that `crossmate convert` writes must load in puzpy (which verifies the global,
   header, masked and extension checksums) with the same title, author, copyright, notes,
   solution (rebus squares included), circles and clues that `crossmate show --json` reports.
   A puzzle Crossmate locks must unlock in puzpy with the same key.
2. Every .puz that puzpy writes (re-saved fixtures, edited and locked copies) must read in
   Crossmate with the same content, and a puzpy-locked file must unlock with its key.

Usage: python puzpy_oracle.py CROSSMATE_BINARY FIXTURES_DIR WORK_DIR
Prints one line per check and a closing "N passed, M failed" line; exits 1 on any failure.
"""
import json
import os
import subprocess
import sys

import puz

from oracle import Checks

crossmate, fixtures, work = sys.argv[1:4]
check = Checks()


def run(*args):
    return subprocess.run([crossmate, *args], capture_output=True, text=True)


def show(path, *extra):
    result = run("show", path, "--json", *extra)
    if result.returncode != 0:
        raise RuntimeError(f"crossmate show {path} failed: {result.stderr.strip()}")
    return json.loads(result.stdout)


def puzpy_view(p):
    """The content of a puzpy puzzle in the shape of `crossmate show --json`."""
    rebus = p.rebus() if p.has_rebus() else None
    markup = p.markup().markup if p.has_markup() else [0] * (p.width * p.height)
    cells = []
    for row in range(p.height):
        line = []
        for col in range(p.width):
            i = row * p.width + col
            letter = p.solution[i]
            if letter in ".:":
                line.append(None)
                continue
            if rebus and rebus.table[i]:
                letter = rebus.solutions[rebus.table[i] - 1]
            line.append({"solution": letter.upper(), "circled": bool(markup[i] & 0x80)})
        cells.append(line)
    numbering = p.clue_numbering()
    clues = {
        "across": [(c["num"], c["clue"]) for c in numbering.across],
        "down": [(c["num"], c["clue"]) for c in numbering.down],
    }
    return {"title": p.title, "author": p.author, "copyright": p.copyright, "notes": p.notes,
            "width": p.width, "height": p.height, "cells": cells, "clues": clues}


def crossmate_view(j):
    cells = [[None if c is None else {"solution": c["solution"], "circled": c["circled"]} for c in row]
             for row in j["cells"]]
    clues = {d: [(c["number"], c["text"]) for c in j["clues"][d]] for d in ("across", "down")}
    return {"title": j["title"], "author": j["author"], "copyright": j["copyright"], "notes": j["notes"],
            "width": j["width"], "height": j["height"], "cells": cells, "clues": clues}


def compare(name, ours, theirs):
    if ours == theirs:
        check(name, True)
        return
    diff = {k: (ours.get(k), theirs.get(k)) for k in ours if ours.get(k) != theirs.get(k)}
    check(name, False, f"differs: {diff}")


# Sources whose entries are not those of standard numbering, and why.
NONSTANDARD_ENTRIES = {
    "gaps.ipuz": "clues only some entries, numbered its own way",
    "gaps.jpz": "clues only some entries, numbered its own way",
    "test-cell-ranges.jpz": "its 3-Down is not a straight run of squares",
}

os.makedirs(work, exist_ok=True)
kot = os.path.join(fixtures, "kotwords")
sources = ["bundled:green-light", "bundled:best-foot-forward", "bundled:daybreak"]
for folder in ("puz", "ipuz", "jpz", "xd"):
    for name in sorted(os.listdir(os.path.join(kot, folder))):
        if name.endswith("." + folder) and "barred" not in name:
            sources.append(os.path.join(kot, folder, name))

# 1. Crossmate writes, puzpy reads.
for index, source in enumerate(sources):
    label = os.path.basename(source)
    out = os.path.join(work, f"ours-{index}.puz")
    result = run("convert", source, out)
    if result.returncode != 0:
        check(f"convert {label}", False, result.stderr.strip())
        continue
    try:
        theirs = puz.read(out)
    except puz.PuzzleFormatError as error:
        check(f"puzpy loads our {label}", False, str(error))
        continue
    check(f"puzpy loads our {label} with valid checksums", True)
    written = show(out)
    source_view = crossmate_view(show(source))
    if all(c is None or c["solution"] is not None for row in written["cells"] for c in row):
        compare(f"puzpy reads our {label} as we do", crossmate_view(written), puzpy_view(theirs))
    else:
        check(f"puzpy sees no solution in our {label}", theirs.solution_state == 0x0002)
    # .puz can only clue the entries of standard numbering; these sources clue other runs
    # of squares, so only their clues may differ.
    written_view = crossmate_view(written)
    if label in NONSTANDARD_ENTRIES:
        source_view["clues"] = written_view["clues"]
    compare(f"our {label} keeps its content through .puz", written_view, source_view)

for source in sources[:3]:
    label = source.split(":")[1]
    out = os.path.join(work, f"locked-{label}.puz")
    run("convert", source, out, "--lock", "7391")
    theirs = puz.read(out)
    check(f"puzpy sees our locked {label} as locked", theirs.is_solution_locked())
    check(f"puzpy unlocks our {label} with our key", theirs.unlock_solution(7391))
    compare(f"puzpy's unlocked {label} matches the original", crossmate_view(show(source)), puzpy_view(theirs))

# 2. puzpy writes, Crossmate reads.
for name in sorted(os.listdir(os.path.join(kot, "puz"))):
    original = puz.read(os.path.join(kot, "puz", name))
    original.title = original.title + " (re-saved by puzpy)"
    original.notes = "Notes with Latin-1: café, naïve" if original.version_tuple()[0] < 2 else "Notes: αβγ"
    out = os.path.join(work, f"theirs-{name}")
    original.save(out)
    reread = puz.read(out)
    ours = show(out)
    if reread.solution_state == 0x0002:
        check(f"we read puzpy's {name} as having no solution",
              all(c is None or c["solution"] is None for row in ours["cells"] for c in row))
        continue
    compare(f"we read puzpy's {name} as puzpy does", crossmate_view(ours), puzpy_view(reread))

for source in sources[:3]:
    label = source.split(":")[1]
    plain = os.path.join(work, f"plain-{label}.puz")
    run("convert", source, plain)
    theirs = puz.read(plain)
    theirs.lock_solution(4862)
    out = os.path.join(work, f"puzpy-locked-{label}.puz")
    theirs.save(out)
    hidden = show(out)
    check(f"we see puzpy's locked {label} as locked", hidden["locked"] is True)
    compare(f"we unlock puzpy's {label} with its key", crossmate_view(show(out, "--key", "4862")),
            crossmate_view(show(source)))
    wrong = run("show", out, "--key", "4863")
    check(f"we refuse puzpy's locked {label} with a wrong key",
          wrong.returncode == 1 and "wrong unlock key" in wrong.stderr)

# 3. Rebus answers survive locking and unlocking both ways, and a diagramless grid keeps ':'.
# The bundled puzzle, as `crossmate convert` writes it out (the bundled puzzles live in the source).
green_xd = os.path.join(work, "green-light.xd")
run("convert", "bundled:green-light", green_xd)
with open(green_xd) as f:
    green = f.read()
rebus_xd = os.path.join(work, "rebus.xd")
with open(rebus_xd, "w") as f:
    f.write(green.replace("title: Green Light", "title: Rebus Light\nrebus: 1=GREEN 2=SUN")
                 .replace("\nGREEN\n", "\n1REEN\n").replace("\nEATS#\n", "\nEAT2#\n"))
rebus_view = crossmate_view(show(rebus_xd))
check("the rebus test puzzle has its rebus squares",
      rebus_view["cells"][1][0]["solution"] == "GREEN" and rebus_view["cells"][4][3]["solution"] == "SUN")
ours_locked = os.path.join(work, "rebus-locked.puz")
run("convert", rebus_xd, ours_locked, "--lock", "2468")
theirs = puz.read(ours_locked)
check("puzpy sees our locked rebus puzzle as locked", theirs.is_solution_locked())
check("puzpy unlocks our locked rebus puzzle with our key", theirs.unlock_solution(2468))
compare("puzpy's unlocked rebus puzzle has the whole rebus answers", rebus_view, puzpy_view(theirs))
compare("we unlock our locked rebus puzzle with the whole rebus answers",
        crossmate_view(show(ours_locked, "--key", "2468")), rebus_view)
plain_rebus = os.path.join(work, "rebus-plain.puz")
run("convert", rebus_xd, plain_rebus)
theirs = puz.read(plain_rebus)
theirs.lock_solution(1357)
their_locked = os.path.join(work, "rebus-puzpy-locked.puz")
theirs.save(their_locked)
compare("we unlock puzpy's locked rebus puzzle with the whole rebus answers",
        crossmate_view(show(their_locked, "--key", "1357")), rebus_view)

diagramless = os.path.join(work, "diagramless.puz")
run("convert", os.path.join(kot, "puz", "test-diagramless.puz"), diagramless)
theirs = puz.read(diagramless)
check("puzpy reads our diagramless grid with ':' blocks",
      ":" in theirs.solution and "." not in theirs.solution and ":" in theirs.fill and "." not in theirs.fill)
compare("puzpy reads our diagramless puzzle as we do", crossmate_view(show(diagramless)), puzpy_view(theirs))
again = os.path.join(work, "diagramless-again.puz")
run("convert", diagramless, again)
with open(diagramless, "rb") as a, open(again, "rb") as b:
    check("a diagramless .puz written, read and written again is the same file", a.read() == b.read())

check.finish()
