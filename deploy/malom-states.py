#!/usr/bin/env python3
"""An `egdb plan --json` beside the states Malom stores for the same game.

Gévay and Danner's Malom keeps a game as sectors (W, B, WF, BF): W pieces
of the side to move and B of the other on the board, WF and BF in hand (a
position of the other side to move is stored colour-swapped). A sector's
table has f(W) * C(24 - W, B) entries: the side to move's set reduced by
the 16 symmetries of RULES.md (f(W) orbits of W-point sets), the other
side's ranked among the free points. Those are facts read from its source
(github.com/ggevay/malom, hash.cpp); the counting below is ours. Each
egdb slice is one or two such tables (both orientations), so its plan's
entries can be set beside Malom's table sizes one by one, and the tables
beside the sectors Malom's graph reaches from the start (where hands mix,
from every start within the game's, as its extended solution does).

    egdb plan GAME --json | python3 deploy/malom-states.py GAME

GAME is morris:standard:P, morris:morabaraba:P, morris:lasker:P or
morris:FAMILY:K:L; the start is K:L (or P:P). Prints the tables both
have, those only one has, and the totals. Exits 1 if a slice's entries
are not the sizes of its tables, 2 on bad input.
"""

import json
import sys
from math import comb

POINTS = 24


def symmetries():
    """The 16 permutations of the points: 4 rotations, reflected or not,
    the inner and outer squares swapped or not. Counting does not depend
    on the numbering, so points are (square, k) with k going round."""
    perms = []
    for swap in (False, True):
        for reflect in (False, True):
            for turn in range(4):
                perms.append(tuple(
                    (2 - square if swap else square) * 8
                    + ((-k if reflect else k) + 2 * turn) % 8
                    for square in range(3) for k in range(8)))
    return perms


def cycle_lengths(perm):
    seen, lengths = set(), []
    for start in range(POINTS):
        length, p = 0, start
        while p not in seen:
            seen.add(p)
            p = perm[p]
            length += 1
        if length:
            lengths.append(length)
    return lengths


def fixed_sets(lengths, most):
    """fixed[w] = the w-point sets a permutation with these cycles fixes."""
    fixed = [1] + [0] * most
    for length in lengths:
        for w in range(most, length - 1, -1):
            fixed[w] += fixed[w - length]
    return fixed


FIXED = [fixed_sets(cycle_lengths(p), POINTS) for p in symmetries()]
ORBITS = [sum(f[w] for f in FIXED) // len(FIXED) for w in range(POINTS + 1)]


def table_entries(w, b):
    return ORBITS[w] * comb(POINTS - w, b)


def entries(tables):
    return sum(table_entries(w, b) for w, b, _, _ in tables)


def children(sector, lasker):
    """Malom's sector graph: a placement or a move, with a capture or not,
    then the other side to move; a side left below 3 pieces ends the game."""
    w, b, wf, bf = sector
    steps = []
    if wf:
        steps += [(w + 1, b, wf - 1, bf), (w + 1, b - 1, wf - 1, bf)]
    if (lasker and w) or not wf:
        steps += [(w, b, wf, bf), (w, b - 1, wf, bf)]
    for w2, b2, wf2, bf2 in steps:
        if b2 >= 0 and b2 + bf2 >= 3 and (b2, w2, bf2, wf2) != sector:
            yield (b2, w2, bf2, wf2)


def sector_graph(starts, lasker):
    seen, todo = set(starts), list(starts)
    while todo:
        for child in children(todo.pop(), lasker):
            if child not in seen:
                seen.add(child)
                todo.append(child)
    return seen


def starts(hands, first, second):
    """The starts a plan answers: its own; where hands mix (hand slices)
    every start with as many pieces or fewer, in both orders, as Malom's
    extended solution seeds them."""
    if not hands:
        return {(0, 0, first, second)}
    return {start for k in range(3, first + 1) for l in range(3, second + 1)
            for start in ((0, 0, k, l), (0, 0, l, k))}


def slice_tables(name, first, second):
    """The Malom sectors an egdb slice holds (both orientations)."""
    kind, *numbers = name.split("-")
    try:
        numbers = [int(n) for n in numbers if not n.startswith("p")]
    except ValueError:
        raise ValueError(f"unknown slice {name}") from None
    if kind == "move" and len(numbers) == 2:
        a, b = numbers
        return {(a, b, 0, 0), (b, a, 0, 0)}
    if kind == "place" and len(numbers) == 3:
        ply, mover, other = numbers
        if ply % 2 == 0:
            return {(mover, other, first - ply // 2, second - ply // 2)}
        return {(mover, other, second - ply // 2, first - ply // 2 - 1)}
    if kind == "hand" and len(numbers) == 4:
        h1, b1, h2, b2 = numbers
        return {(b1, b2, h1, h2), (b2, b1, h2, h1)}
    raise ValueError(f"unknown slice {name}")


def parse_game(spec):
    parts = spec.split(":")
    if len(parts) not in (3, 4) or parts[0] != "morris":
        raise ValueError(f"not a morris:FAMILY:P or morris:FAMILY:K:L game: {spec}")
    family = parts[1]
    if family not in ("standard", "morabaraba", "lasker"):
        raise ValueError(f"Malom plays standard, morabaraba and lasker, not {family}")
    if not all(p.isdigit() for p in parts[2:]):
        raise ValueError(f"pieces must be numbers: {spec}")
    pieces = [int(p) for p in parts[2:]]
    first, second = pieces if len(pieces) == 2 else pieces * 2
    if not (3 <= first <= 12 and 3 <= second <= 12):
        raise ValueError(f"pieces must be 3 to 12: {spec}")
    return family == "lasker", first, second


def main():
    if len(sys.argv) != 2:
        print("usage: egdb plan GAME --json | malom-states.py GAME", file=sys.stderr)
        return 2
    try:
        lasker, first, second = parse_game(sys.argv[1])
        try:
            plan = json.load(sys.stdin)
        except json.JSONDecodeError as e:
            raise ValueError(f"standard input is not `egdb plan --json`: {e}") from e
        slices, total = plan["slices"], plan["entries"]
        # Parity splits of one pair of counts hold the same tables.
        groups = {}
        for s in slices:
            tables = frozenset(slice_tables(s["slice"], first, second))
            groups[tables] = groups.get(tables, 0) + s["entries"]
        hands = any(s["slice"].startswith("hand-") for s in slices)
    except KeyError as e:
        print(f"malom-states: not `egdb plan --json`: no field {e}", file=sys.stderr)
        return 2
    except (ValueError, TypeError) as e:
        print(f"malom-states: {e}", file=sys.stderr)
        return 2
    ours = set().union(*groups)
    theirs = sector_graph(starts(hands, first, second), lasker)
    differ = [(sorted(t), e) for t, e in groups.items() if e != entries(t)]
    both = ours & theirs
    print(f"{sys.argv[1]}: {len(ours)} egdb tables in {len(slices)} slices, "
          f"{total:,} entries")
    print(f"Malom's sector graph from the start{'s' if hands else ''}: {len(theirs)} sectors, "
          f"{entries(theirs):,} entries")
    print(f"in both: {len(both)} tables, {entries(both):,} entries")
    print(f"egdb only: {len(ours - theirs)} tables, {entries(ours - theirs):,} entries")
    print(f"Malom only: {len(theirs - ours)} sectors, {entries(theirs - ours):,} entries")
    for tables, e in differ:
        print(f"differs: tables {tables}: egdb {e:,} entries, Malom "
              f"{entries(tables):,}")
    print(f"{len(groups) - len(differ)} of {len(groups)} slice groups "
          "have Malom's table sizes.")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
