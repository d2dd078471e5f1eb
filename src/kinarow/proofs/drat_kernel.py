"""Numba kernel of the DRAT checker: read a DRAT proof, then check it forward (RUP, then RAT, with deletions).

It knows nothing of games: :mod:`kinarow.proofs.drat` builds the formula from
the rules and hands it over as arrays. Every lemma is checked, in the order
written, against the clauses alive at that point; the proof is accepted when
it adds the empty clause and that clause passes the check.

Literals and values
===================

A literal is a non-zero ``int32`` as in DIMACS: ``v`` or ``-v`` for variable
``v`` in ``1..nvars``. Its *index* ``2 * v + (1 if negative)`` picks its
watch list. ``assign[v]`` is +1 (true), -1 (false) or 0, so the value of
literal ``l`` is ``assign[|l|]`` times its sign.

The clause database
===================

Formula clauses first (ids ``0 .. F-1``), then one id per added lemma, in
proof order. All literals sit in one flat array::

    db:     | c0: l l l | c1: l l | c2: l l l l | ... | lemma F: l l l | ...
             ^cstart[0]  ^cstart[1]
    clen[c]   its length (duplicate literals removed, first occurrence kept)
    alive[c]  0 once deleted (or not yet added)

Positions ``cstart[c]`` and ``cstart[c] + 1`` hold the two *watched*
literals of a clause of two or more. Each clause has two watch nodes, ``2c``
and ``2c + 1``; a node sits in the list of the literal it watches::

    head[index(l)] -> node -> wnext[node] -> ... -> -1      wclause[node] = node // 2

``wblock[node]`` is another literal of the node's clause (the *blocker*):
while it is true, the clause is satisfied and a walk skips it without
reading ``db``. Invariant (top level): a watched literal is not false, unless
the clause's other watched literal (or its blocker) is true. A deleted clause's nodes are unlinked lazily,
when a walk of a list meets them.

The trail
=========

``trail[0:top]`` holds the top-level assignments (units and what they
propagate), ``reason[v]`` the clause that set ``v`` (its literal at
``cstart``), -1 for an assumption. A check assumes the negated lemma above
``top``, propagates, and undoes back to ``top``. Deleting a clause that is
the reason of a top-level literal rebuilds the top level from the alive unit
clauses: deletions are honoured, never ignored, so the checked clause set is
always the one the proof describes. A unit lemma becomes the reason of its
literal, so deleting the clause that first propagated it costs no rebuild.

The proof, once read (:func:`parse`)
====================================

``kind[i]`` (0 add, 1 delete), ``pstart[i]``, ``plen[i]``: step i's literals
are ``plits[pstart[i] : pstart[i] + plen[i]]``, as written (the first is the
RAT pivot). Deletions name a clause by its literals in any order: a hash of
the literal set (``hkey``, a sum of mixed literals) finds the candidates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from kinarow import kernel_cache  # noqa: F401  (before any kernel: its cache stamp)

# parse() status codes
PARSED, BAD_BYTE, NUMBER_TOO_LARGE, UNFINISHED = 0, 1, 2, 3
# check() status codes
ACCEPTED, NOT_IMPLIED, NO_EMPTY_CLAUSE, VARIABLE_OUT_OF_RANGE = 0, 1, 2, 3

_MAX_LITERAL = 2**31 - 1


@njit(cache=True)
def parse(text: np.ndarray) -> tuple[int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """DRAT text (bytes as uint8) -> (status, byte offset of the error or step count, kind, pstart, plen, plits).

    Allowed: decimal literals, ``0`` ending each line, ``d`` opening a deletion, comment lines opening with
    ``c``, and white space. Anything else is BAD_BYTE at its offset.
    """
    size = text.shape[0]
    kind = np.zeros(size // 2 + 1, np.int8)
    pstart = np.zeros(size // 2 + 1, np.int64)
    plen = np.zeros(size // 2 + 1, np.int32)
    plits = np.zeros(size // 2 + 1, np.int32)
    steps, nlits, i = 0, 0, 0
    status, where = PARSED, 0
    open_step, deleting = False, False
    while i < size:
        b = text[i]
        if b == 32 or b == 10 or b == 13 or b == 9:
            i += 1
        elif b == 99 and not open_step and not deleting:  # 'c': a comment line
            while i < size and text[i] != 10:
                i += 1
        elif b == 100 and not open_step and not deleting:  # 'd'
            deleting = True
            i += 1
        elif b == 45 or (48 <= b <= 57):
            sign = 1
            if b == 45:
                sign = -1
                i += 1
                if i >= size or not (48 <= text[i] <= 57):
                    status, where = BAD_BYTE, min(i, size - 1)
                    break
            value = np.int64(0)
            while i < size and 48 <= text[i] <= 57:
                value = value * 10 + (np.int64(text[i]) - 48)
                if value > _MAX_LITERAL:
                    break
                i += 1
            if value > _MAX_LITERAL:
                status, where = NUMBER_TOO_LARGE, i
                break
            if i < size and not (text[i] == 32 or text[i] == 10 or text[i] == 13 or text[i] == 9):
                status, where = BAD_BYTE, i
                break
            if not open_step:
                pstart[steps] = nlits
                kind[steps] = 1 if deleting else 0
                open_step = True
            if value == 0:
                plen[steps] = nlits - pstart[steps]
                steps += 1
                open_step, deleting = False, False
            else:
                plits[nlits] = sign * value
                nlits += 1
        else:
            status, where = BAD_BYTE, i
            break
    if status == PARSED and (open_step or deleting):
        status, where = UNFINISHED, size
    if status != PARSED:
        steps, nlits = 0, 0
    else:
        where = steps
    return status, where, kind[:steps].copy(), pstart[:steps].copy(), plen[:steps].copy(), plits[:nlits].copy()


@njit(cache=True, inline="always")
def _value(assign: np.ndarray, lit: int) -> int:
    return assign[lit] if lit > 0 else -assign[-lit]


@njit(cache=True, inline="always")
def _index(lit: int) -> int:
    return 2 * lit if lit > 0 else -2 * lit + 1


@njit(cache=True)
def _mix(lit: int) -> np.int64:
    x = np.uint64(lit + 0x9E3779B9) * np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(31)
    x *= np.uint64(0x94D049BB133111EB)
    return np.int64(x >> np.uint64(2))


@njit(cache=True, inline="always")
def _distinct(lits, start, n, seen, stamp, out, at):  # type: ignore[no-untyped-def]
    """Copy ``lits[start:start + n]`` to ``out[at:]`` without repeats (the first occurrence kept, so a pivot
    stays first), marking each with ``stamp`` in ``seen``; returns (how many were copied, the set's hash key)."""
    m = 0
    key = np.int64(0)
    for j in range(start, start + n):
        lit = lits[j]
        mark = stamp * 2 + (1 if lit > 0 else 0)
        if seen[abs(lit)] == mark:
            continue
        seen[abs(lit)] = mark
        out[at + m] = lit
        m += 1
        key += _mix(lit)
    return m, key


@njit(cache=True)
def _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state) -> bool:  # type: ignore[no-untyped-def]
    """Unit propagation of trail[state[1]:state[0]]; True on a conflict. state = [trail length, queue head]."""
    while state[1] < state[0]:
        t = trail[state[1]]
        state[1] += 1
        false_lit = -t
        fi = _index(false_lit)
        prev = -1
        node = head[fi]
        while node != -1:
            nxt = wnext[node]
            c = node >> 1
            if alive[c] == 0:  # a deleted clause: drop its node from this list
                if prev == -1:
                    head[fi] = nxt
                else:
                    wnext[prev] = nxt
                node = nxt
                continue
            if _value(assign, wblock[node]) == 1:  # a literal of the clause is true: nothing to do
                prev = node
                node = nxt
                continue
            s = cstart[c]
            if db[s] == false_lit:
                db[s] = db[s + 1]
                db[s + 1] = false_lit
            other = db[s]
            if _value(assign, other) == 1:
                wblock[node] = other
                prev = node
                node = nxt
                continue
            moved = False
            for j in range(s + 2, s + clen[c]):
                if _value(assign, db[j]) != -1:
                    db[s + 1] = db[j]
                    db[j] = false_lit
                    if prev == -1:
                        head[fi] = nxt
                    else:
                        wnext[prev] = nxt
                    ni = _index(db[s + 1])
                    wnext[node] = head[ni]
                    head[ni] = node
                    wblock[node] = other
                    moved = True
                    break
            if moved:
                node = nxt
                continue
            if _value(assign, other) == -1:
                return True
            v = abs(other)
            assign[v] = 1 if other > 0 else -1
            reason[v] = c
            trail[state[0]] = other
            state[0] += 1
            prev = node
            node = nxt
    return False


@njit(cache=True)
def _undo(assign, reason, trail, state, mark) -> None:  # type: ignore[no-untyped-def]
    for i in range(mark, state[0]):
        v = abs(trail[i])
        assign[v] = 0
        reason[v] = -1
    state[0] = mark
    state[1] = mark


@njit(cache=True)
def _assume(assign, reason, trail, state, lit) -> bool:  # type: ignore[no-untyped-def]
    """Make ``lit`` true as an assumption (no reason); False when it is already false (a conflict)."""
    value = _value(assign, lit)
    if value == -1:
        return False
    if value == 0:
        v = abs(lit)
        assign[v] = 1 if lit > 0 else -1
        reason[v] = -1
        trail[state[0]] = lit
        state[0] += 1
    return True


@njit(cache=True, inline="always")
def _unit(assign, reason, trail, state, lit, c) -> bool:  # type: ignore[no-untyped-def]
    """Make ``lit``, forced by clause ``c``, true at the top level (pushed on the trail, ``c`` its reason: a
    unit clause is the best reason, deleted only on purpose); True when ``lit`` is already false."""
    value = _value(assign, lit)
    if value == -1:
        return True
    v = abs(lit)
    if value == 0:
        assign[v] = 1 if lit > 0 else -1
        trail[state[0]] = lit
        state[0] += 1
    reason[v] = c
    return False


@njit(cache=True)
def _attach(db, cstart, clen, head, wnext, wblock, assign, reason, trail, state, c) -> bool:  # type: ignore[no-untyped-def]
    """Add clause ``c`` at the top level; True when the top level becomes inconsistent."""
    s, n = cstart[c], clen[c]
    if n == 0:
        return True
    if n == 1:
        return _unit(assign, reason, trail, state, db[s], c)
    # bring the non-false literals (true first) to the two watched positions
    found = 0
    for want in (1, 0):
        j = s + found
        while j < s + n and found < 2:
            if _value(assign, db[j]) == want:
                tmp = db[s + found]
                db[s + found] = db[j]
                db[j] = tmp
                found += 1
            j += 1
    for w in range(2):
        node = 2 * c + w
        ni = _index(db[s + w])
        wnext[node] = head[ni]
        head[ni] = node
        wblock[node] = db[s + 1 - w]
    if found == 0:
        return True
    if found == 1 and _value(assign, db[s]) == 0:
        _unit(assign, reason, trail, state, db[s], c)
    return False


@njit(cache=True)
def _rebuild(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state, units, nunits) -> bool:  # type: ignore[no-untyped-def]
    """Reset the top level to the alive unit clauses and propagate; True when inconsistent."""
    _undo(assign, reason, trail, state, 0)
    for i in range(nunits):
        c = units[i]
        if alive[c] == 1:
            if clen[c] == 0 or _unit(assign, reason, trail, state, db[cstart[c]], c):
                return True
    # every clause's watches are unassigned after the reset, so propagation sees all units and conflicts
    return _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state)


@njit(cache=True)
def check(nvars: int, f_lits: np.ndarray, f_start: np.ndarray, f_len: np.ndarray, kind: np.ndarray,
          pstart: np.ndarray, plen: np.ndarray, plits: np.ndarray, counts: np.ndarray) -> tuple[int, int]:
    """Check a parsed proof against a formula of ``nvars`` variables: (status, step).

    ACCEPTED with the step that added the empty clause; NOT_IMPLIED with the first lemma that is neither RUP
    nor RAT; NO_EMPTY_CLAUSE with the step count; VARIABLE_OUT_OF_RANGE with the step naming a variable beyond
    ``nvars`` plus one new variable per added lemma (extension variables). ``counts`` receives [lemmas checked,
    RAT lemmas, deletions honoured, deletions of clauses not present, top-level rebuilds].
    """
    nform, nsteps = f_start.shape[0], kind.shape[0]
    adds = 0
    for i in range(nsteps):
        if kind[i] == 0:
            adds += 1
    top_var = nvars + adds
    maxvar = nvars
    for i in range(plits.shape[0]):
        v = abs(plits[i])
        if v > maxvar:
            maxvar = v
    if maxvar > top_var:
        for i in range(nsteps):
            for j in range(pstart[i], pstart[i] + plen[i]):
                if abs(plits[j]) > top_var:
                    return VARIABLE_OUT_OF_RANGE, i
    nclauses = nform + adds
    total = f_lits.shape[0]
    for i in range(nsteps):
        if kind[i] == 0:
            total += plen[i]
    db = np.zeros(total, np.int32)
    cstart = np.zeros(nclauses, np.int64)
    clen = np.zeros(nclauses, np.int32)
    alive = np.zeros(nclauses, np.int8)
    hkey = np.zeros(nclauses, np.int64)
    seen = np.zeros(maxvar + 1, np.int64)  # stamp per variable: removes duplicate literals
    stamp = 0
    nunits = 0
    units = np.zeros(nclauses, np.int64)
    assign = np.zeros(maxvar + 1, np.int8)
    reason = np.full(maxvar + 1, -1, np.int64)
    trail = np.zeros(maxvar + 1, np.int32)
    state = np.zeros(2, np.int64)
    head = np.full(2 * maxvar + 2, -1, np.int64)
    wnext = np.full(2 * nclauses, -1, np.int64)
    wblock = np.zeros(2 * nclauses, np.int32)  # a literal of the clause; when true, the clause is skipped
    # hash chains of alive clauses by literal set, for deletions
    hsize = 1
    while hsize < 2 * nclauses + 2:
        hsize *= 2
    hhead = np.full(hsize, -1, np.int64)
    hnext = np.full(nclauses, -1, np.int64)

    fill = 0
    inconsistent = False
    for c in range(nform):
        stamp += 1
        cstart[c] = fill
        m, key = _distinct(f_lits, f_start[c], f_len[c], seen, stamp, db, fill)
        fill += m
        clen[c] = m
        hkey[c] = key
        alive[c] = 1
        h = key & (hsize - 1)
        hnext[c] = hhead[h]
        hhead[h] = c
        if clen[c] <= 1:
            units[nunits] = c
            nunits += 1
        inconsistent = _attach(db, cstart, clen, head, wnext, wblock, assign, reason, trail, state, c) or inconsistent
    if not inconsistent:
        inconsistent = _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state)

    scratch = np.zeros(64, np.int32)
    next_id = nform
    for i in range(nsteps):
        s, n = pstart[i], plen[i]
        stamp += 1
        # the step's literal set, duplicates removed (first occurrence kept: the pivot stays first)
        if scratch.shape[0] < n:
            scratch = np.zeros(2 * n, np.int32)
        m, key = _distinct(plits, s, n, seen, stamp, scratch, 0)
        if kind[i] == 1:  # deletion: find an alive clause with the same literal set
            h = key & (hsize - 1)
            prev = -1
            c = hhead[h]
            while c != -1:
                if hkey[c] == key and clen[c] == m:
                    same = True
                    for j in range(cstart[c], cstart[c] + m):  # every literal of c is in the step's set
                        lit = db[j]
                        if seen[abs(lit)] != stamp * 2 + (1 if lit > 0 else 0):
                            same = False
                            break
                    if same:
                        break
                prev = c
                c = hnext[c]
            if c == -1:
                counts[3] += 1
                continue
            if prev == -1:
                hhead[h] = hnext[c]
            else:
                hnext[prev] = hnext[c]
            alive[c] = 0
            counts[2] += 1
            is_reason = False
            for j in range(cstart[c], cstart[c] + m):
                v = abs(db[j])
                if assign[v] != 0 and reason[v] == c:
                    is_reason = True
            if is_reason:
                counts[4] += 1
                inconsistent = _rebuild(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state,
                                        units, nunits)
            continue
        # an added lemma: RUP, else RAT on its first literal
        counts[0] += 1
        if not inconsistent:
            top = state[0]
            conflict = False
            for j in range(m):
                if not _assume(assign, reason, trail, state, -scratch[j]):
                    conflict = True
                    break
            if not conflict:
                conflict = _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state)
            _undo(assign, reason, trail, state, top)
            if not conflict:
                if m == 0:
                    return NOT_IMPLIED, i
                counts[1] += 1
                pivot = scratch[0]
                ok = True
                base_conflict = False
                for j in range(1, m):
                    if not _assume(assign, reason, trail, state, -scratch[j]):
                        base_conflict = True
                        break
                if not base_conflict:
                    base_conflict = _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail,
                                               state)
                if not base_conflict:
                    base = state[0]
                    for d in range(next_id):
                        if alive[d] == 0:
                            continue
                        has = False
                        for j in range(cstart[d], cstart[d] + clen[d]):
                            if db[j] == -pivot:
                                has = True
                                break
                        if not has:
                            continue
                        hit = False
                        for j in range(cstart[d], cstart[d] + clen[d]):
                            if db[j] != -pivot and not _assume(assign, reason, trail, state, -db[j]):
                                hit = True
                                break
                        if not hit:
                            hit = _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state)
                        _undo(assign, reason, trail, state, base)
                        if not hit:
                            ok = False
                            break
                _undo(assign, reason, trail, state, top)
                if not ok:
                    return NOT_IMPLIED, i
        if m == 0:
            return ACCEPTED, i
        c = next_id
        next_id += 1
        cstart[c] = fill
        for j in range(m):
            db[fill] = scratch[j]
            fill += 1
        clen[c] = m
        hkey[c] = key
        alive[c] = 1
        h = key & (hsize - 1)
        hnext[c] = hhead[h]
        hhead[h] = c
        if m == 1:
            units[nunits] = c
            nunits += 1
        inconsistent = _attach(db, cstart, clen, head, wnext, wblock, assign, reason, trail, state, c) or inconsistent
        if not inconsistent:
            inconsistent = _propagate(db, cstart, clen, alive, head, wnext, wblock, assign, reason, trail, state)
    return NO_EMPTY_CLAUSE, nsteps
