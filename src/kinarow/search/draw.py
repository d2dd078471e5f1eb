"""Draw certificates from search: blocking trees with pairing leaves (checked by :mod:`kinarow.proofs.draw`).

To show that the *attacker* cannot win, the defender's strategy is written
out as a tree (see :mod:`kinarow.proofs.draw` for the format). The tree is
built by a walk that follows every attacker move and, at each defender turn,
picks one move:

1. a move after which a pairing of the attacker's live groups holds, or that
   completes a defender group, ends the branch at once;
2. otherwise the moves are ranked by a two-stone look-ahead (how many
   attacker replies leave the defender such a move;
   :func:`kinarow.engine.breaker.reply_scores`), ties broken by the
   Erdos-Selfridge potential of the attacker's live groups (lower first;
   :func:`kinarow.engine.breaker.potentials`), and the best one that the
   solver proves safe (the attacker, to move, cannot win) is played. (Only
   the ``LOOKAHEAD_MOVES`` moves of lowest potential are counted, and
   exactly only those of the best count; the others are ranked after them,
   by potential.)

The walk does not write tokens as it goes. It keeps a *memory*
(:class:`Memory`): for each position it has settled, up to the board's
symmetries, the defender's move, a pairing, "every attacker move followed",
or "refuted" (the attacker wins against every defender move the walk had).
Everything proved stays proved, also inside an attempt that was backed up
from. The certificate's tokens come from a last, cheap pass that replays the
memory from the root in the checker's order (:func:`linearise`). So a memory
can be

* saved and loaded (``checkpoint``): a stopped walk resumes where it was;
* built in parts: with ``workers > 1`` each attacker move at the root is a
  job in its own process (:func:`kinarow.engine.pool.run_cells`), which looks up
  the memories saved so far by the other jobs (and by a one-process walk of
  the same position) and saves only its own; the parts are merged at the
  end.
  A merged memory is sound because each entry's own subtree was proved
  where the entry was made (and the checker verifies the result anyway).
"""

from __future__ import annotations

import itertools
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from kinarow.engine import breaker as BK
from kinarow.errors import KinarowError
from kinarow.game import Game
from kinarow.position import Position, value_names
from kinarow.proofs import blocking_fit, envelope
from kinarow.proofs.draw import EXPAND, FORMAT, HALVES, LEAF, STEALING, TREE, VERSION, Canon, claim_for
from kinarow.proofs.draw import stealing_fit as stealing_fit
from kinarow.search.engine import Engine
from kinarow.values import Goal, Player, Value

#: node budget of one pairing search at a node of the walk
PAIR_BUDGET = 4096
#: node budget of each pairing search inside the two-stone look-ahead (many per node: kept small)
LOOKAHEAD_BUDGET = 64
#: defender moves (the lowest potentials) that get the two-stone look-ahead count at a node; the others are
#: only checked for a leaf at once or a loss at once. 7x4k4, one process, safety budget 1,000: all moves
#: 62.3 s and 140,921 positions; 1 move 37.8 s, 297,374; 2: 28.0 s, 190,883; 3: 26.3 s, 161,010; 4: 28.0 s,
#: 171,007; 6: 30.4 s, 159,862. 8x4k4, 2 workers, safety budget 10^6: 3 moves 5,456,207 positions (1,904 s
#: under load); 6 moves 4,130,677 (1,690 s); all moves (an older, slower walk) 3,102,722. On the larger
#: boards the size of the tree is what limits, hence 6.
LOOKAHEAD_MOVES = 6
#: pairings kept (most recent first) and tried at a node before a new search
CACHE_ROWS = 256
LEAF_SCORE = 1 << 20
#: seconds between two saves of a walk's memory to its checkpoint file
SAVE_EVERY = 60.0
#: delta files of a memory's checkpoint before the main file is written whole again
MAX_DELTAS = 64

#: memory entries (a defender move is its cell in the canonical frame, 0 .. cells-1; a leaf is cells + pairing)
EXPANDED = -1
REFUTED = -2


class StoppedError(KinarowError):
    """The walk was stopped (time limit or Ctrl-C) before the tree was complete.

    ``walked``: the positions settled by this run (all jobs); ``resumed``: those read from checkpoints."""

    walked: int = 0
    resumed: int = 0


@dataclass
class TreeStats:
    """Figures of one blocking tree: its positions, leaves and defender moves, and the walk's work."""

    positions: int = 0
    leaves: int = 0
    defender_moves: int = 0
    safety_tests: int = 0
    refuted_candidates: int = 0
    pairings: int = 0
    seconds: float = 0.0
    walked: int = 0  # positions the walk settled (all jobs; more than ``positions`` when jobs overlapped)
    resumed: int = 0  # positions read from checkpoints
    workers: int = 1

    def add_work(self, other: TreeStats) -> None:
        self.safety_tests += other.safety_tests
        self.refuted_candidates += other.refuted_candidates
        self.walked += other.walked


class Frames:
    """Canonical keys of positions together with the symmetry that gives them (cells <-> canonical cells)."""

    def __init__(self, position: Position) -> None:
        inverses = Canon(position).inverses or [list(range(position.geometry.size))]
        self.pairs = []
        for inverse in inverses:
            forward = [0] * len(inverse)
            for i, c in enumerate(inverse):
                forward[c] = i
            self.pairs.append((inverse, forward))
        self.images = np.array([inverse for inverse, _ in self.pairs], np.intp)  # one row per symmetry

    def frame(self, board: list[int]) -> tuple[bytes, list[int], list[int]]:
        """The key (the least image of ``board``; the first symmetry giving it), and the maps canonical ->
        actual and actual -> canonical. (All images at once with numpy: 8 times faster on 8 x 8.)"""
        keys = [row.tobytes() for row in np.frombuffer(bytes(board), np.uint8)[self.images]]
        key = min(keys)
        inverse, forward = self.pairs[keys.index(key)]
        return key, inverse, forward


#: boards of up to this many cells keep settled keys packed, as base-3 codes in a uint64 (3^40 < 2^64)
MAX_PACKED_CELLS = 40
#: boards of up to this many cells keep them as two such codes (the cells before the last 40, then those), in
#: :data:`WIDE` (16 bytes a key where the dict takes about 200: an (8,8,5) tree holds millions)
MAX_WIDE_CELLS = 2 * MAX_PACKED_CELLS
WIDE = np.dtype([("hi", "<u8"), ("lo", "<u8")])
_DIGITS = bytes.maketrans(bytes(range(3)), b"012")
_BLOCK = 1 << 20


def _packs(cells: int) -> bool:
    """Are the keys of a board of ``cells`` cells kept as codes (one or two words)?"""
    return cells <= MAX_WIDE_CELLS


def _no_codes(cells: int) -> np.ndarray:
    return np.zeros(0, np.uint64 if cells <= MAX_PACKED_CELLS else WIDE)


def _find(codes: np.ndarray, key: bytes) -> int | None:
    """Where ``key``'s base-3 code is in the sorted ``codes``, or None."""
    digits = key.translate(_DIGITS)
    code: np.uint64 | np.ndarray
    if len(key) <= MAX_PACKED_CELLS:
        code = np.uint64(int(digits, 3))  # a numpy scalar: a Python int would make numpy copy the array
    else:
        cut = len(key) - MAX_PACKED_CELLS
        code = np.array((int(digits[:cut], 3), int(digits[cut:], 3)), WIDE)
    i = int(codes.searchsorted(code))
    return i if i < len(codes) and codes[i] == code else None


def _encode(keys: np.ndarray) -> np.ndarray:
    """The base-3 codes of ``keys`` (rows of cell values), in blocks (a (rows, cells) uint64 copy is large); two
    words (:data:`WIDE`) on a board of more than ``MAX_PACKED_CELLS`` cells."""
    if keys.shape[1] > MAX_PACKED_CELLS:
        cut = keys.shape[1] - MAX_PACKED_CELLS
        out = np.zeros(len(keys), WIDE)
        out["hi"], out["lo"] = _encode(keys[:, :cut]), _encode(keys[:, cut:])
        return out
    weights = 3 ** np.arange(keys.shape[1] - 1, -1, -1, dtype=np.uint64)
    blocks = [keys[start:start + _BLOCK].astype(np.uint64) @ weights for start in range(0, len(keys), _BLOCK)]
    return np.concatenate(blocks) if blocks else np.zeros(0, np.uint64)


def _decode(codes: np.ndarray, cells: int) -> np.ndarray:
    """The keys (rows of cell values) of base-3 ``codes``."""
    if cells > MAX_PACKED_CELLS:
        cut = cells - MAX_PACKED_CELLS
        return np.hstack([_decode(np.ascontiguousarray(codes["hi"]), cut),
                          _decode(np.ascontiguousarray(codes["lo"]), MAX_PACKED_CELLS)])
    keys = np.zeros((len(codes), cells), np.uint8)
    rest = codes.copy()
    for cell in range(cells - 1, -1, -1):
        keys[:, cell] = rest % np.uint64(3)
        rest //= np.uint64(3)
    return keys


def _file_arrays(data: Any, cells: int) -> tuple[np.ndarray, np.ndarray]:
    """A memory file's keys (as codes on a packed board, else as rows of cell values) and entries."""
    if "codes" in data.files:
        return data["codes"], data["entries"]
    keys = data["keys"]
    return (_encode(keys) if _packs(cells) else keys), data["entries"]


def _first_of_each(codes: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``codes`` sorted, each once, with the value it has first in the arrays."""
    order = np.argsort(codes, kind="stable")
    codes, values = codes[order], values[order]
    first = np.ones(len(codes), np.bool_)
    first[1:] = codes[1:] != codes[:-1]
    return codes[first], values[first]


class Memory:
    """What a walk has settled, by canonical key; pairings are kept in the canonical frame, as pair masks.

    New entries go to a dict (``known``); on boards of at most ``MAX_WIDE_CELLS`` cells a loaded memory,
    and every ``FOLD_AT`` new entries once saved, are kept instead as sorted base-3 codes with their
    entries (12 bytes a position, 20 past ``MAX_PACKED_CELLS`` cells, where the dict takes about 170: a
    (9,4,4) opening job holds tens of millions). Entries are only ever added (a key is settled once), so a
    save writes just what is new since
    the last one, as a small *delta* file beside the main file (``NAME.g<generation>.d<i>.npz``); every
    ``MAX_DELTAS`` saves, or when the new part is larger than what is on disk, the main file is written
    whole again (a new generation) and the deltas go. Loading reads the main file and its generation's deltas.
    """

    FOLD_AT = 1 << 21

    def __init__(self, cells: int) -> None:
        self.cells = cells
        self.packed = _packs(cells)
        self.known: dict[bytes, int] = {}  # entries not folded into the arrays below (all, on larger boards)
        self.codes = _no_codes(cells)  # folded entries: keys' codes, sorted
        self.values = np.zeros(0, np.int32)
        self.pairings: list[tuple[int, ...]] = []
        self._pairing_ids: dict[tuple[int, ...], int] = {}
        # what is on disk: (path, generation, entries, pairings, deltas) of the last save or load; the entries
        # not on disk are those of ``known`` from the ``_saved_in_known``-th on
        self._disk: tuple[Path, int, int, int, int] | None = None
        self._saved_in_known = 0
        self._compiled: tuple[tuple[int, int, int, int], tuple[np.ndarray, ...]] | None = None  # compiled_arrays()

    def __len__(self) -> int:
        return len(self.known) + len(self.codes)

    def get(self, key: bytes) -> int | None:
        """The entry of ``key``, or None."""
        entry = self.known.get(key)
        if entry is None and len(self.codes):
            i = self.slot(key)
            return None if i is None else int(self.values[i])
        return entry

    def slot(self, key: bytes) -> int | None:
        """Where ``key`` is in the folded arrays, or None."""
        return _find(self.codes, key)

    def items(self) -> Iterable[tuple[bytes, int]]:
        """Every (key, entry), the folded ones first."""
        for start in range(0, len(self.codes), _BLOCK):
            keys = _decode(self.codes[start:start + _BLOCK], self.cells)
            yield from zip((bytes(k) for k in keys), self.values[start:start + _BLOCK].tolist(), strict=True)
        yield from self.known.items()

    def compiled_arrays(self) -> tuple[np.ndarray, ...]:
        """A folded packed memory as the compiled walks take it: the codes' two words (``hi`` 0 on a board of
        at most ``MAX_PACKED_CELLS`` cells), an index of them (:func:`kinarow.engine.linearise_kernel.index`)
        and its size in bits, and the pairings' cells (pairing ``i`` is rows ``start[i]:start[i + 1]`` of the
        (pairs, 2) array). Kept until the memory changes."""
        from kinarow.engine import linearise_kernel as LK

        size = (id(self.codes), len(self.codes), len(self.pairings), len(self.known))
        if self._compiled is not None and self._compiled[0] == size:
            return self._compiled[1]
        if self.cells > MAX_PACKED_CELLS:
            hi, lo = np.ascontiguousarray(self.codes["hi"]), np.ascontiguousarray(self.codes["lo"])
        else:
            lo = np.ascontiguousarray(self.codes, np.uint64)
            hi = np.zeros(len(lo), np.uint64)
        table, bits = LK.index(hi, lo)
        start = np.zeros(len(self.pairings) + 1, np.int64)
        np.cumsum(np.fromiter(map(len, self.pairings), np.int64, len(self.pairings)), out=start[1:])
        flat = _pair_cells_array(np.fromiter(itertools.chain.from_iterable(self.pairings), np.uint64, int(start[-1])))
        arrays = (hi, lo, table, bits, start, flat)
        self._compiled = (size, arrays)
        return arrays

    def pairing_id(self, masks: tuple[int, ...]) -> int:
        masks = tuple(sorted(masks))
        index = self._pairing_ids.get(masks)
        if index is None:
            index = self._pairing_ids[masks] = len(self.pairings)
            self.pairings.append(masks)
        return index

    def fold(self) -> None:
        """Move the dict's entries into the sorted arrays (on a packed board)."""
        if not self.packed or not self.known:
            return
        if self._saved_in_known < len(self.known):
            self._disk = None  # the entries not on disk leave the dict: the next save writes everything
        self.codes, self.values = self._all()
        self.known, self._saved_in_known = {}, 0

    def _all(self) -> tuple[np.ndarray, np.ndarray]:
        """All entries of a packed board's memory as (sorted codes, entries); the dict's entry wins where a
        key was set again after it was folded."""
        if not self.known:
            return self.codes, self.values
        codes, values = self._dict_arrays(0)
        return _first_of_each(np.concatenate([codes, self.codes]), np.concatenate([values, self.values]))

    def _dict_arrays(self, first: int) -> tuple[np.ndarray, np.ndarray]:
        """The dict's entries from the ``first``-th on: keys (codes on a packed board) and entries."""
        known = self.known if first == 0 else dict(itertools.islice(self.known.items(), first, None))
        n = len(known)
        keys = np.frombuffer(b"".join(known), np.uint8).reshape(n, self.cells) if n else np.zeros((0, self.cells),
                                                                                                  np.uint8)
        return (_encode(keys) if self.packed else keys), np.fromiter(known.values(), np.int32, n)

    def merge(self, *others: Memory) -> None:
        """Add the ``others``' entries (this memory's entries win where both have one, then the earlier
        other's); on a packed board all of them are folded in at once."""
        cells = self.cells
        remaps = [np.array([self.pairing_id(p) for p in other.pairings] or [0], np.int64) for other in others]
        if self.packed:
            mine = self._all()
            codes, entries = [mine[0]], [mine[1]]
            for other, remap in zip(others, remaps, strict=True):
                theirs = other._all()
                values = theirs[1].astype(np.int64)
                leaves = values >= cells
                values[leaves] = cells + remap[values[leaves] - cells]
                codes.append(theirs[0])
                entries.append(values.astype(np.int32))
            self.codes, self.values = _first_of_each(np.concatenate(codes), np.concatenate(entries))
            self.known, self._saved_in_known, self._disk = {}, 0, None
            return
        for other, remap in zip(others, remaps, strict=True):
            for key, entry in other.items():
                if key not in self.known:
                    self.known[key] = entry if entry < cells else cells + int(remap[entry - cells])

    def _arrays(self, keys: np.ndarray, entries: np.ndarray, first_pairing: int) -> dict[str, np.ndarray]:
        """A file's arrays: the entries given and the pairings from ``first_pairing`` on."""
        pairings = self.pairings[first_pairing:]
        width = max((len(p) for p in pairings), default=0)
        pairs = np.zeros((len(pairings), width), np.uint64)
        for i, p in enumerate(pairings):
            pairs[i, : len(p)] = p
        return {"cells": np.array(self.cells, np.int64), "codes" if self.packed else "keys": keys, "entries": entries,
                "pairs": pairs, "lengths": np.array([len(p) for p in pairings], np.int64)}

    def save(self, path: Path) -> None:
        """Write the memory to ``path`` (``.npz``; each file replaced atomically): the new entries as a delta
        when the last save or load was of the same path, else the whole memory. Then, past ``FOLD_AT``
        entries in the dict, fold them."""
        path.parent.mkdir(parents=True, exist_ok=True)
        n, n_pairings = len(self), len(self.pairings)
        disk = self._disk
        if disk is not None and disk[0] == path and (n, n_pairings) == disk[2:4] and path.exists():
            return  # nothing new
        if disk is not None and disk[0] == path and disk[4] < MAX_DELTAS and n - disk[2] <= max(disk[2], 1):
            _, generation, _, saved_pairings, deltas = disk
            keys, entries = self._dict_arrays(self._saved_in_known)
            _write_npz(_delta_path(path, generation, deltas), self._arrays(keys, entries, saved_pairings))
            self._disk = (path, generation, n, n_pairings, deltas + 1)
        else:
            generation = (disk[1] + 1) if disk is not None and disk[0] == path else 1
            stale = _deltas_of(path)
            keys, entries = self._all() if self.packed else self._dict_arrays(0)
            _write_npz(path, {**self._arrays(keys, entries, 0), "generation": np.int64(generation)})
            for old in stale:
                old.unlink(missing_ok=True)
            self._disk = (path, generation, n, n_pairings, 0)
        self._saved_in_known = len(self.known)
        if len(self.known) >= self.FOLD_AT:
            self.fold()

    @classmethod
    def load(cls, path: Path, cells: int) -> Memory:
        """A memory saved by :meth:`save` (for a board of ``cells`` cells; one clear sentence otherwise)."""
        memory = cls(cells)
        parts: list[tuple[np.ndarray, np.ndarray]] = []

        def add(data: Any, file: Path) -> None:
            for row, length in zip(data["pairs"], data["lengths"], strict=True):
                memory.pairing_id(tuple(int(m) for m in row[:length]))
            keys, entries = _file_arrays(data, cells)
            if memory.packed:
                parts.append((keys, entries.astype(np.int32)))
            else:
                memory.known.update(zip((bytes(k) for k in keys), entries.tolist(), strict=True))

        generation, deltas = _read_files(path, cells, add)
        if parts:
            memory.codes, memory.values = _first_of_each(np.concatenate([p[0] for p in parts]),
                                                         np.concatenate([p[1] for p in parts]))
        memory._saved_in_known = len(memory.known)
        memory._disk = (path, generation, len(memory), len(memory.pairings), deltas)
        return memory

    @staticmethod
    def count(path: Path) -> int:
        """How many entries the memory saved at ``path`` holds (read from the file headers, not loaded)."""
        from numpy.lib import format as npformat

        counts: list[int] = []

        def rows(data: Any, file: Path) -> None:
            with data.zip.open("codes.npy" if "codes" in data.files else "keys.npy") as fh:
                version = npformat.read_magic(fh)
                header = npformat.read_array_header_1_0 if version == (1, 0) else npformat.read_array_header_2_0
                counts.append(int(header(fh)[0][0]))

        _read_files(path, None, rows)
        return sum(counts)

    @staticmethod
    def entries(path: Path, cells: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """The keys (codes on a packed board, else rows of cell values) and entries of the memory saved at
        ``path``, file by file (no dict is built)."""
        found: list[tuple[np.ndarray, np.ndarray]] = []
        _read_files(path, cells, lambda data, file: found.append(_file_arrays(data, cells)))
        return found


def _read_files(path: Path, cells: int | None, read: Callable[[Any, Path], None]) -> tuple[int, int]:
    """Pass the main file of a saved memory, then its deltas, to ``read`` (open data, file); returns the
    generation and how many deltas were read. The files must be for a board of ``cells`` cells (unless
    None); one clear sentence for a file that cannot be read."""
    import zipfile

    def one(file: Path) -> None:
        with np.load(file) as data:
            if cells is not None and int(data["cells"]) != cells:
                raise KinarowError(f"the checkpoint {file} is for a board of {int(data['cells'])} cells, not {cells}")
            read(data, file)

    try:
        with np.load(path) as data:
            generation = int(data["generation"]) if "generation" in data.files else 0
        one(path)
        return generation, _read_deltas(path, generation, one)
    except (OSError, ValueError, KeyError, zipfile.BadZipFile) as error:
        raise KinarowError(f"the checkpoint {path} cannot be read ({error}); delete it to start again") from None


def _read_deltas(path: Path, generation: int, read: Callable[[Path], None]) -> int:
    """Pass the deltas of ``path``'s generation to ``read`` in order; returns how many were read. The chain
    ends at a gap (a save that never finished) or a delta that is gone (the walk writing them has just folded
    them into a new main file): what follows is not used, and an entry left out is only settled again."""
    done = 0
    for delta in sorted(_deltas_of(path, generation), key=_delta_index):
        if _delta_index(delta) != done:
            break
        try:
            read(delta)
        except FileNotFoundError:
            break
        done += 1
    return done


def _write_npz(path: Path, arrays: dict[str, Any]) -> None:
    tmp = path.with_name(path.name + ".part")
    with open(tmp, "wb") as fh:
        np.savez(fh, **arrays)
    os.replace(tmp, path)


def _delta_path(path: Path, generation: int, index: int) -> Path:
    return path.with_name(f"{path.name}.g{generation}.d{index}.npz")


def _delta_index(path: Path) -> int:
    return int(path.name.rsplit(".d", 1)[1].removesuffix(".npz"))


def _digits(text: str) -> bool:
    """Is ``text`` a number in a checkpoint's file name: ASCII digits only ('\u0663' is not one)?"""
    return text.isascii() and text.isdigit()


def _deltas_of(path: Path, generation: int | None = None) -> list[Path]:
    """The delta files saved beside ``path`` (of one generation, or of any)."""
    pattern = f"{path.name}.g{'*' if generation is None else generation}.d*.npz"
    numbers = (p.name[len(path.name) + 2:].removesuffix(".npz").split(".d") for p in path.parent.glob(pattern))
    return [path.with_name(f"{path.name}.g{parts[0]}.d{parts[1]}.npz") for parts in numbers
            if len(parts) == 2 and all(_digits(part) for part in parts)]  # a stray 'x.g1.dabc.npz' is no delta


class Seeds:
    """What other walks settled, for lookups only (never saved with this walk's memory).

    Only whether a position was refuted matters here, so each key is kept as its base-3 code in a sorted
    array, with one flag: 9 bytes a position, where a dict of the keys takes about 170 (several GiB for
    the (9,4,4) openings; two words past 40 cells, as :class:`Memory`). Boards of more than 80 cells keep a dict
    of flags instead.
    """

    def __init__(self, cells: int) -> None:
        self.cells = cells
        self.codes = np.zeros(0, np.uint64)
        self.refuted = np.zeros(0, np.bool_)
        self.flags: dict[bytes, bool] = {}  # refuted or not, on boards too large to pack
        self.count = 0  # entries read, a position read twice counted twice
        self.per_file: dict[Path, tuple[int, int]] = {}  # entries and refuted entries read from each memory

    def __len__(self) -> int:
        return len(self.codes) + len(self.flags)

    @classmethod
    def load(cls, paths: Iterable[Path], cells: int) -> Seeds:
        seeds = cls(cells)
        packed = _packs(cells)
        codes, refuted = [], []
        for path in paths:
            for keys, entries in Memory.entries(path, cells):
                seeds.count += len(entries)
                read, refuted_read = seeds.per_file.get(path, (0, 0))
                seeds.per_file[path] = (read + len(entries), refuted_read + int(np.count_nonzero(entries == REFUTED)))
                if not packed:
                    flags = seeds.flags
                    for key, refuted_here in zip((bytes(k) for k in keys), (entries == REFUTED).tolist(), strict=True):
                        if not refuted_here or key not in flags:  # settled by any walk wins
                            flags[key] = refuted_here
                    continue
                codes.append(keys)
                refuted.append(entries == REFUTED)
        if codes:
            all_codes, all_refuted = np.concatenate(codes), np.concatenate(refuted)
            order = np.argsort(all_refuted, kind="stable")  # by code, a settled entry before a refuted one
            order = order[np.argsort(all_codes[order], kind="stable")]
            all_codes, all_refuted = all_codes[order], all_refuted[order]
            first = np.ones(len(all_codes), np.bool_)
            first[1:] = all_codes[1:] != all_codes[:-1]
            seeds.codes, seeds.refuted = all_codes[first], all_refuted[first]
        return seeds

    def lookup(self, key: bytes) -> bool | None:
        """True if another walk proved ``key`` safe for the defender, False if it refuted it, None if unknown."""
        if self.flags:
            flag = self.flags.get(key)
            return None if flag is None else not flag
        if not len(self.codes):
            return None
        i = _find(self.codes, key)
        return None if i is None else not bool(self.refuted[i])


class _Walk:
    def __init__(self, position: Position, attacker: int, searcher: Any, budget: int, memory: Memory,
                 tick: Callable[[int], None] | None, deadline: float | None, safety_budget: int | None,
                 save: Callable[[], None] | None = None, seeds: Seeds | None = None) -> None:
        self.attacker, self.defender = attacker, 3 - attacker
        self.searcher = searcher
        game = position.game
        geo = position.geometry
        self.cells = game.cells
        self.masks = np.array(geo.group_masks, np.uint64)
        self.pbuf = BK.new_buffers(game.cells, max(int(self.masks.size), 1))
        self.kctrl = np.zeros(BK.N_CTRL, np.int64)
        self.out = np.zeros(game.cells, np.uint64)
        self.scores = np.zeros(game.cells, np.int64)
        self.potential = np.zeros(game.cells, np.float64)
        self.order = np.zeros(game.cells, np.int64)
        self.budget = budget
        self.ring = PairingRing(game.cells)
        self.frames = Frames(position)
        self.memory = memory
        self.seeds = seeds if seeds is not None else Seeds(game.cells)  # other jobs' (not saved with ours)
        self.safety_budget = safety_budget
        self.attacker_win = value_names(game)[attacker - 1]
        self.stats = TreeStats()
        self.tick = tick
        self.deadline = deadline
        self.save = save
        self.saved_at = time.perf_counter()

    def _bits(self, pos: Position) -> tuple[np.uint64, np.uint64]:
        return np.uint64(pos.bits[self.attacker]), np.uint64(pos.bits[self.defender])

    def _pairing(self, pos: Position) -> tuple[int, ...] | None:
        """The pair masks of a pairing that holds at ``pos`` (a recent one, or one found now), or None."""
        M, B = self._bits(pos)
        return self.ring.pairing(self.masks, M, B, self.budget, self.pbuf, self.kctrl, self.out)

    def _safe(self, pos: Position) -> bool | None:
        """After the defender's move: can the attacker (to move) not win? By the solver, within the safety
        budget (None: not decided; the walk then tries the move and backs up if it fails)."""
        if pos.is_over:
            return True
        self.stats.safety_tests += 1
        mover = Player.of(pos.to_move)
        said = self.searcher.wins(pos, mover, max_nodes=self.safety_budget)
        return None if said is Value.UNKNOWN else said.winner is not mover

    def _ranked(self, pos: Position) -> list[tuple[int, int]]:
        """The defender's moves with their look-ahead scores, best first (losing at once: left out)."""
        M, B = self._bits(pos)
        n = BK.ranked_moves(self.masks, M, B, np.array(pos.legal_moves(), np.int64), LOOKAHEAD_MOVES, True,
                            self.pbuf, self.kctrl, LOOKAHEAD_BUDGET, self.potential, self.scores, self.order)
        scores = self.scores
        return [(c, int(scores[c])) for c in self.order[:n].tolist()]

    def _settle(self, key: bytes, entry: int) -> bool:
        self.memory.known[key] = entry
        if entry == REFUTED:
            return False
        self.stats.walked += 1
        if self.stats.walked % 1024 == 0:
            if self.tick is not None:
                self.tick(len(self.memory))
            now = time.perf_counter()
            if self.save is not None and now - self.saved_at > SAVE_EVERY:
                self.save()
                self.saved_at = time.perf_counter()
            if self.deadline is not None and now > self.deadline:
                raise StoppedError("the time limit ran out before the blocking tree was complete")
        return True

    def visit(self, pos: Position) -> bool:
        """Prove that the attacker cannot win from ``pos`` (into the memory); False if this walk cannot."""
        if pos.is_over:
            return pos.result != self.attacker_win
        key, _, forward = self.frames.frame(pos.board)
        entry = self.memory.get(key)
        if entry is not None:
            return entry != REFUTED
        seeded = self.seeds.lookup(key)
        if seeded is not None:
            return seeded
        pairing = self._pairing(pos)
        if pairing is not None:
            canonical = tuple((1 << forward[a]) | (1 << forward[b]) for a, b in pair_cells(pairing))
            return self._settle(key, self.cells + self.memory.pairing_id(canonical))
        if pos.to_move == self.attacker:
            for cell in pos.legal_moves():
                pos.play(cell)
                ok = self.visit(pos)
                pos.undo()
                if not ok:
                    return self._settle(key, REFUTED)
            return self._settle(key, EXPANDED)
        for cell, score in self._ranked(pos):
            pos.play(cell)
            safe = True if score >= LEAF_SCORE else self._safe(pos)
            ok = safe is not False and self.visit(pos)
            pos.undo()
            if ok:
                return self._settle(key, forward[cell])
            self.stats.refuted_candidates += 1
        return self._settle(key, REFUTED)


class PairingRing:
    """The pairings found most recently, as pair masks (a compiled test tries them newest first)."""

    def __init__(self, cells: int) -> None:
        self.rows = np.zeros((CACHE_ROWS, max(cells // 2, 1)), np.uint64)
        self.lengths = np.zeros(CACHE_ROWS, np.int64)
        self.used = 0
        self.newest = -1

    def find(self, groups: np.ndarray, M: np.uint64, B: np.uint64) -> tuple[int, ...] | None:
        if not self.used:
            return None
        row = BK.cached_pairing(groups, M, B, self.rows, self.lengths, self.used, self.newest)
        return None if row < 0 else tuple(int(m) for m in self.rows[row, : self.lengths[row]])

    def add(self, masks: Any) -> tuple[int, ...]:
        n = len(masks)
        self.newest = (self.newest + 1) % CACHE_ROWS
        self.used = min(self.used + 1, CACHE_ROWS)
        self.rows[self.newest, :n] = masks
        self.lengths[self.newest] = n
        return tuple(int(m) for m in masks)

    def pairing(self, groups: np.ndarray, M: np.uint64, B: np.uint64, budget: int, buffers: Any,
                kctrl: np.ndarray, out: np.ndarray) -> tuple[int, ...] | None:
        """The pair masks of a pairing that blocks every group of Maker's (stones ``M``, Breaker's ``B``): a
        recent one, or one the compiled search finds now within ``budget`` (then kept); None if neither."""
        found = self.find(groups, M, B)
        if found is not None:
            return found
        kctrl[:] = 0
        kctrl[BK.C_BUDGET] = budget
        n = BK.pairing_pairs(groups, M, B, buffers, kctrl, out)
        return None if n < 0 else self.add(out[:n])


def _pair_cells_array(masks: np.ndarray) -> np.ndarray:
    """:func:`pair_cells` of many pair masks at once: a (pairs, 2) array of their cells (at least one row)."""
    if not len(masks):
        return np.zeros((1, 2), np.int64)
    low = masks & (~masks + np.uint64(1))
    high = masks ^ low
    # a power of two converts to a float exactly, so its logarithm is its bit's index
    return np.stack([np.log2(low.astype(np.float64)), np.log2(high.astype(np.float64))], axis=1).astype(np.int64)


def pair_cells(masks: tuple[int, ...]) -> list[tuple[int, int]]:
    """The two cells of each pair mask."""
    pairs = []
    for m in masks:
        a = (m & -m).bit_length() - 1
        rest = m ^ (1 << a)
        pairs.append((a, rest.bit_length() - 1))
    return pairs


def linearise(position: Position, attacker: int, memory: Memory) -> tuple[dict[str, Any], TreeStats]:
    """The blocking tree (tokens and pairings) that the memory's entries give from ``position``.

    The replay visits positions in the checker's order and skips those the
    checker will skip. A leaf uses a pairing already written when one of the
    last few holds, else the memory's pairing, mapped onto the board.
    """
    frames = Frames(position)
    game = position.game
    cells = game.cells
    masks = np.array(position.geometry.group_masks, np.uint64)
    memory.fold()  # on a packed board every entry is then in the arrays, and what is written is one bit a slot
    if _compiled_applies(position, memory):
        compiled = _linearise_compiled(position, attacker, memory, frames, masks)
        if compiled is not None:
            return compiled
    ring = PairingRing(cells)
    ring_index: dict[int, int] = {}  # ring row -> pairing number in the certificate
    texts: list[str] = []
    tokens: list[str] = []
    done = np.zeros(len(memory.codes), np.bool_)
    written: set[bytes] = set()  # the keys written, on a board too large to pack
    attacker_win = value_names(game)[attacker - 1]
    stats = TreeStats()
    pos = position.copy()

    def visit() -> None:
        if pos.is_over:
            if pos.result == attacker_win:
                raise KinarowError(f"the memory's tree loses after {pos.move_text()}")
            return
        key, inverse, _ = frames.frame(pos.board)
        slot = memory.slot(key) if memory.packed else None
        if (key in written) if slot is None else done[slot]:
            return
        entry = memory.get(key) if slot is None else int(memory.values[slot])
        if entry is None or entry == REFUTED:
            raise KinarowError(f"the memory has no defence after {pos.move_text() or '(start)'}")
        if entry >= cells:
            M, B = np.uint64(pos.bits[attacker]), np.uint64(pos.bits[3 - attacker])
            row = BK.cached_pairing(masks, M, B, ring.rows, ring.lengths, ring.used, ring.newest) if ring.used else -1
            if row < 0:
                actual = [(1 << inverse[a]) | (1 << inverse[b]) for a, b in pair_cells(memory.pairings[entry - cells])]
                ring.add(np.array(actual, np.uint64))
                row = ring.newest
                ring_index[row] = len(texts)
                texts.append(" ".join(f"{pos.name(a)}-{pos.name(b)}" for a, b in pair_cells(tuple(actual))))
            tokens.append(f"{LEAF}{ring_index[row]}")
            stats.leaves += 1
        elif entry == EXPANDED:
            tokens.append(EXPAND)
            for cell in pos.legal_moves():
                pos.play(cell)
                visit()
                pos.undo()
        else:
            cell = inverse[entry]
            tokens.append(pos.name(cell))
            stats.defender_moves += 1
            pos.play(cell)
            visit()
            pos.undo()
        if slot is None:
            written.add(key)
        else:
            done[slot] = True

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * cells + 200))
    try:
        visit()
    finally:
        sys.setrecursionlimit(limit)
    stats.positions = len(written) + int(np.count_nonzero(done))
    stats.pairings = len(texts)
    return {"method": TREE, "pairings": texts, "tokens": " ".join(tokens)}, stats


def _compiled_applies(position: Position, memory: Memory) -> bool:
    """Can :func:`linearise` take the compiled walk (:mod:`kinarow.engine.linearise_kernel`) here?"""
    game = position.game
    return (memory.packed and not memory.known and game.cells <= 64 and not game.gravity and not position.is_over
            and game.goal in (Goal.NORMAL, Goal.MAKER_BREAKER))


def _linearise_compiled(position: Position, attacker: int, memory: Memory, frames: Frames,
                        masks: np.ndarray) -> tuple[dict[str, Any], TreeStats] | None:
    """:func:`linearise` by the compiled walk; None where it stops (the Python walk then says why)."""
    from kinarow.engine import linearise_kernel as LK
    from kinarow.proofs import tree_kernel as TK

    game = position.game
    cells = game.cells
    cut = cells - MAX_PACKED_CELLS if cells > MAX_PACKED_CELLS else 0
    codes_hi, codes_lo, table, table_bits, pair_start, flat = memory.compiled_arrays()
    powers_hi = np.array([3 ** (cut - 1 - i) for i in range(cut)] or [0], np.uint64)
    powers_lo = np.array([3 ** (cells - cut - 1 - i) for i in range(cells - cut)], np.uint64)
    ring = PairingRing(cells)
    ring_state = np.array([0, -1], np.int64)
    ring_index = np.zeros(CACHE_ROWS, np.int64)
    n = len(memory.values) + 1
    tokens = np.zeros(n, np.int64)
    new_pairings = np.zeros((n, 2), np.int32)
    _, flanks, cell_groups, start, turn, goal = TK.rules(game)
    board = np.array(position.board, np.int8)
    bits = np.array(position.bits, np.uint64)
    status, n_tokens, n_pairings, positions, leaves, defender_moves, _ = LK.linearise_tokens(
        board, bits, position.stones, turn, attacker, cells, masks, flanks, cell_groups, start, goal, frames.images,
        cut, powers_hi, powers_lo, codes_hi, codes_lo, table, table_bits, memory.values, pair_start, flat, ring.rows,
        ring.lengths, ring_state, ring_index, tokens, new_pairings)
    if status != LK.OK:
        return None
    names = [position.geometry.name(c) for c in range(cells)]
    texts = []
    for pid, s in new_pairings[:n_pairings].tolist():
        image = frames.images[s]
        mapped = image[flat[pair_start[pid]:pair_start[pid + 1]]].tolist()
        actual = tuple((1 << a) | (1 << b) for a, b in mapped)
        texts.append(" ".join(f"{names[a]}-{names[b]}" for a, b in pair_cells(actual)))
    words = [names[t] if t >= 0 else EXPAND if t == LK.EXPAND_TOKEN else f"{LEAF}{-2 - t}"
             for t in tokens[:n_tokens].tolist()]
    stats = TreeStats(positions=positions, leaves=leaves, defender_moves=defender_moves, pairings=len(texts))
    return {"method": TREE, "pairings": texts, "tokens": " ".join(words)}, stats


# -- the walk in one process, or in jobs -------------------------------------------------------------------
_SEARCHERS: dict[tuple[str, float | None], Any] = {}


def safety_searcher(game: Game, tt_mb: float | None = None) -> Engine:
    """The searcher of the walk's safety tests ("can the attacker, to move, win?"): the proof search
    (:class:`kinarow.search.proof_search.ProofSearcher`, with a table of at most
    :data:`PROOF_TABLE_MB` MiB) where it applies, else alpha-beta with pairing knowledge. 7x7k5, the whole
    certificate with `kinarow solve --proof`: 14 s with the proof search, unfinished in 300 s before."""
    from kinarow.search.alphabeta import Searcher
    from kinarow.search.proof_search import ProofSearcher, proof_search_fit

    if proof_search_fit(game):
        return ProofSearcher(game, tt_mb=safety_table_mb(game, tt_mb))
    return Searcher(game, tt_mb=tt_mb, knowledge="pairing")


def safety_table_mb(game: Game, tt_mb: float | None = None) -> float:
    """The table of :func:`safety_searcher` in MiB, given ``tt_mb`` (None: its default): what a walk's worker holds."""
    from kinarow.limits import default_tt_mb
    from kinarow.search.proof_search import proof_search_fit

    if proof_search_fit(game):
        return min(tt_mb or PROOF_TABLE_MB, PROOF_TABLE_MB)
    return tt_mb or default_tt_mb(game)


#: the largest table of a proof search asking the walk's safety tests (MiB)
PROOF_TABLE_MB = 256


def _job_searcher(game_text: str, tt_mb: float | None) -> Any:
    """A worker process's searcher (kept between jobs: its table keeps what earlier jobs searched)."""
    key = (game_text, tt_mb)
    if key not in _SEARCHERS:
        _SEARCHERS.clear()
        _SEARCHERS[key] = safety_searcher(Game(game_text), tt_mb)
    return _SEARCHERS[key]


class _Terminated(KeyboardInterrupt):
    """A worker's walk stopped by SIGTERM. An interrupt, not an error: the kernel that runs in a thread of its
    own is told to stop and waited for (:func:`kinarow.errors.run_stoppable`), and an interrupt that lands
    inside ``Thread.start`` passes through it, where an error would be caught there and leave the new thread's
    start-up half undone (Python 3.11 then printed a KeyError traceback from it)."""


def _stop_on_terminate(signum: int, frame: Any) -> None:
    raise _Terminated


def _walk_job(spec: dict[str, Any]) -> tuple[str, dict[str, int]]:
    """Worker: walk one job's position into its memory file; ("done" | "refuted" | "stopped", its work).

    When the coordinator stops (Ctrl-C, an error) it terminates its workers: the job then saves its
    memory before it ends, so no settled position is lost."""
    signal.signal(signal.SIGTERM, _stop_on_terminate)
    try:
        return _walk_job_body(spec)
    finally:  # between jobs the worker ends as the pool terminates it
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _walk_job_body(spec: dict[str, Any]) -> tuple[str, dict[str, int]]:
    game = Game(spec["game"])
    position = game.position(spec["moves"])
    remaining = None if spec["seconds_left"] is None else spec["seconds_left"] - (time.time() - spec["sent"])
    if remaining is not None and remaining <= 0:
        return "stopped", {}
    path = Path(spec["path"])
    memory = Memory.load(path, game.cells) if path.exists() else Memory(game.cells)
    seeds = Seeds.load((Path(seed) for seed in spec["seeds"]), game.cells)  # saved in their own files only
    deadline = None if remaining is None else time.perf_counter() + remaining
    walk = _Walk(position, spec["attacker"], _job_searcher(spec["game"], spec["tt_mb"]), spec["budget"], memory,
                 None, deadline, spec["safety_budget"], save=lambda: memory.save(path), seeds=seeds)
    try:
        status = "done" if walk.visit(position) else "refuted"
    except (StoppedError, _Terminated):  # the time limit, or terminated: what is settled is kept
        status = "stopped"
    memory.save(path)
    stats = walk.stats
    return status, {"safety_tests": stats.safety_tests, "refuted_candidates": stats.refuted_candidates,
                    "walked": stats.walked}


def blocking_tree(
    position: Position,
    attacker: int,
    searcher: Any,
    *,
    budget: int = PAIR_BUDGET,
    tick: Callable[[int], None] | None = None,
    deadline: float | None = None,
    safety_budget: int | None = None,
    checkpoint: str | Path | None = None,
    workers: int = 1,
    tt_mb: float | None = None,
) -> tuple[dict[str, Any], TreeStats]:
    """The defender's blocking tree showing that ``attacker`` (1 or 2) cannot win from ``position``.

    ``searcher`` is a :class:`kinarow.search.solve.Searcher` of the game (knowledge
    ``pairing`` is fastest); it proves each chosen defender move safe before
    the walk goes on. With ``safety_budget`` (nodes) a move the solver cannot
    decide within the budget is tried anyway, and the walk backs up to the
    next move if the attacker wins below it. Raises :class:`KinarowError` if
    the attacker can in fact win, :class:`StoppedError` at the ``deadline``.

    ``checkpoint`` (a directory) keeps the walk's memory: it is saved every
    minute and when the walk stops, and a later call with the same directory
    resumes. ``workers > 1`` walks the attacker's moves at the root as jobs in
    that many processes (each with a searcher of ``tt_mb`` MiB); without a
    ``checkpoint`` their memories go to a temporary directory.
    """
    from kinarow.limits import check_workers

    fit = blocking_fit(position.game)
    if not fit:
        raise KinarowError(f"a blocking tree proves nothing here: {fit.reason}")
    if position.game.goal == Goal.MAKER_BREAKER and attacker == 2:
        raise KinarowError("a blocking tree proves nothing here: Breaker wins a Maker-Breaker game by a full board "
                           "without a Maker line, which blocking Breaker's groups does not prevent")
    workers = check_workers(workers)
    start = time.perf_counter()
    game = position.game
    folder = None if checkpoint is None else Path(checkpoint)
    if folder is not None and folder.exists() and not folder.is_dir():
        raise KinarowError(f"the checkpoint {folder} is a file; give a directory for the walk's memory")
    if workers > 1 and position.to_move == attacker and not position.is_over:
        if folder is None:
            import tempfile

            with tempfile.TemporaryDirectory(prefix="kinarow-walk-") as tmp:
                return _tree_by_jobs(position, attacker, searcher, budget, tick, deadline, safety_budget,
                                     Path(tmp), workers, tt_mb, start)
        return _tree_by_jobs(position, attacker, searcher, budget, tick, deadline, safety_budget, folder,
                             workers, tt_mb, start)
    path = None if folder is None else folder / _memory_name(attacker, position)
    memory = Memory.load(path, game.cells) if path is not None and path.exists() else Memory(game.cells)
    # the memories of a walk of the same position in jobs, if there was one: looked up, not copied
    stem = "" if path is None else path.name.removesuffix(".npz") + ".job"
    others = [] if path is None or folder is None else sorted(
        p for p in folder.glob(stem + "*.npz") if _digits(p.name[len(stem):-4]))
    seeds = Seeds.load(others, game.cells)
    resumed = len(memory) + seeds.count
    walk = _Walk(position, attacker, searcher, budget, memory, tick, deadline, safety_budget,
                 save=None if path is None else (lambda: memory.save(path)), seeds=seeds)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * game.cells + 200))
    try:
        proved = walk.visit(position.copy())
    except BaseException as error:
        if path is not None:
            memory.save(path)
        if isinstance(error, StoppedError):
            error.walked, error.resumed = walk.stats.walked, resumed
        raise
    finally:
        sys.setrecursionlimit(limit)
    if path is not None:
        memory.save(path)
    if not proved:
        raise KinarowError(f"the defender has no move that stops the attacker after {position.move_text() or '(start)'}"
                           "; the position is not one the attacker cannot win")
    del seeds
    for other in others:
        memory.merge(Memory.load(other, game.cells))  # for the tokens only (the saved memory stays this walk's own)
    data, stats = linearise(position, attacker, memory)
    stats.add_work(walk.stats)
    stats.resumed = resumed
    stats.seconds = time.perf_counter() - start
    return data, stats


def _memory_name(attacker: int, position: Position, job: int | None = None) -> str:
    moves = "-".join(position.name(c) for c in position.moves) or "start"
    return f"{HALVES[attacker]}.{moves}" + ("" if job is None else f".job{job}") + ".npz"


def _walk_files(folder: Path, attacker: int, position: Position, jobs: list[list[int]]) -> tuple[Path, list[Path]]:
    """The memory files of a checkpoint: a one-process walk of ``position``'s, and each opening job's."""
    return (folder / _memory_name(attacker, position),
            [folder / _memory_name(attacker, position, j) for j in range(len(jobs))])


def _opening_jobs(position: Position, frames: Frames) -> list[list[int]]:
    """The jobs of a walk in jobs: the moves to each root move's position, one per symmetry class."""
    jobs: list[list[int]] = []
    seen: set[bytes] = set()
    for cell in position.legal_moves():
        position.play(cell)
        key = frames.frame(position.board)[0]
        if key not in seen and not position.is_over:
            seen.add(key)
            jobs.append(list(position.moves))
        position.undo()
    return jobs


def _tree_by_jobs(position: Position, attacker: int, searcher: Any, budget: int, tick: Callable[[int], None] | None,
                  deadline: float | None, safety_budget: int | None, folder: Path, workers: int,
                  tt_mb: float | None, start: float) -> tuple[dict[str, Any], TreeStats]:
    """The root's attacker moves (one per symmetry class) as jobs on ``workers`` processes, then one tree."""
    from kinarow.engine.pool import run_cells

    game = position.game
    frames = Frames(position)
    jobs = _opening_jobs(position, frames)
    # every saved entry is proved, so a job looks up all the other memories there are: the other jobs' (also
    # of a run that was stopped, or still running) and a one-process walk's of the same position
    single, paths = _walk_files(folder, attacker, position, jobs)
    resumed = sum(Memory.count(p) for p in (single, *paths) if p.exists())
    finished: list[int] = []
    statuses: dict[int, str] = {}
    total = TreeStats(workers=workers)

    def prepare(j: int) -> dict[str, Any]:
        return {"game": str(game), "moves": [position.name(c) for c in jobs[j]], "attacker": attacker,
                "path": str(paths[j]), "seeds": [str(p) for p in (single, *paths) if p != paths[j] and p.exists()],
                "budget": budget,
                "safety_budget": safety_budget, "tt_mb": tt_mb, "sent": time.time(),
                "seconds_left": None if deadline is None else deadline - time.perf_counter()}

    def finish(j: int, result: tuple[str, dict[str, int]]) -> None:
        status, work = result
        statuses[j] = status
        total.add_work(TreeStats(**work))
        finished.append(j)
        if tick is not None:
            tick(len(finished))
        if status == "refuted":
            line = position.move_text(jobs[j])
            raise KinarowError(f"the attacker wins after {line}; the position is not one the attacker cannot win")

    run_cells(_walk_job, len(jobs), prepare, finish, workers=workers)
    if any(s == "stopped" for s in statuses.values()):
        stopped = StoppedError("the time limit ran out before the blocking tree was complete")
        stopped.walked, stopped.resumed = total.walked, resumed
        raise stopped
    memory = Memory(game.cells)
    for p in (single, *paths):
        if p.exists():
            memory.merge(Memory.load(p, game.cells))
    memory.known[frames.frame(position.board)[0]] = EXPANDED
    data, stats = linearise(position, attacker, memory)
    stats.add_work(total)
    stats.resumed, stats.workers = resumed, workers
    stats.seconds = time.perf_counter() - start
    return data, stats


def draw_certificate(
    position: Position,
    searcher: Any,
    *,
    tick: Callable[[int], None] | None = None,
    deadline: float | None = None,
    safety_budget: int | None = None,
    checkpoint: str | Path | None = None,
    workers: int = 1,
    tt_mb: float | None = None,
) -> tuple[dict[str, Any], dict[str, TreeStats]]:
    """A ``kinarow.draw`` certificate for a position whose value is a draw (or for its halves the
    solver can prove: the first player's side always, the second by strategy stealing or a tree).

    ``checkpoint``, ``workers`` and ``tt_mb`` are passed to :func:`blocking_tree`."""
    game: Game = position.game
    moves = [position.name(c) for c in position.moves]
    halves: dict[str, Any] = {}
    stats: dict[str, TreeStats] = {}
    for player in (1, 2):
        name = HALVES[player]
        if player == 2 and stealing_fit(game, moves):
            halves[name] = {"method": STEALING}
            continue
        halves[name], stats[name] = blocking_tree(position, player, searcher, tick=tick, deadline=deadline,
                                                  safety_budget=safety_budget, checkpoint=checkpoint,
                                                  workers=workers, tt_mb=tt_mb)
    data = {**envelope(FORMAT, VERSION, str(game), moves, claim_for(game, {1, 2})), **halves}
    return data, stats


# -- how far a saved walk has got --------------------------------------------------------------------------
@dataclass
class WalkStatus:
    """One walk of a checkpoint directory as its saved memory shows it (nothing is searched to tell).

    No share of the tree done is given: counting each attacker move as the same work overstated the
    progress of the (7,4,4) walk three times over early on (59 % when 18 % was done), since the walk
    settles the cheap edge moves and the symmetric images first."""

    line: str  # the moves to the walk's root: an opening job's first move, or "" for a walk from the start
    state: str  # "done", "refuted", "walking" or "not started"
    settled: int = 0  # entries in this walk's own memory
    refuted: int = 0  # of them, positions where the attacker beat every defender move the walk had
    current: str = ""  # the line the walk is working below (its deepest started position)
    #: at each attacker position on that line: how many of the attacker's moves are settled, of how many
    levels: list[tuple[int, int]] = field(default_factory=list)


def walk_status(position: Position, attacker: int, folder: str | Path) -> list[WalkStatus]:
    """How far the draw-proof walks saved in ``folder`` (a ``checkpoint`` of :func:`blocking_tree`) have got.

    One entry for a one-process walk of ``position`` if there is one, then, if any was saved, one for
    each opening job of a walk in jobs (also those not started). The
    current line of a walk is found from the saved memories alone: at an attacker position the walk
    follows the attacker's moves in order, so the line goes on through the first move not settled; at a
    defender position it goes on through the reply below which the most of the attacker's first moves are
    settled (none: the line ends there; moves settled out of order only come from other lines)."""
    folder = Path(folder)
    game = position.game
    frames = Frames(position)
    jobs = _opening_jobs(position.copy(), frames) if position.to_move == attacker and not position.is_over else []
    single, paths = _walk_files(folder, attacker, position, jobs)
    walks = [(single, list(position.moves))] if single.exists() else []
    if any(path.exists() for path in paths):  # a walk in jobs: those not started yet are listed too
        walks += [(path, moves) for path, moves in zip(paths, jobs, strict=True)]
    seeds = Seeds.load((p for p, _ in walks if p.exists()), game.cells)

    def lookup(pos: Position) -> bool | None:
        return True if pos.is_over else seeds.lookup(frames.frame(pos.board)[0])

    found = []
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 4 * game.cells + 200))
    try:
        for path, moves in walks:
            pos = game.position([position.name(c) for c in moves])
            line = pos.move_text() if moves != list(position.moves) else ""
            settled, refuted = seeds.per_file.get(path, (0, 0))
            root = lookup(pos)
            if root is not None:
                found.append(WalkStatus(line, "done" if root else "refuted", settled, refuted))
            elif not settled:
                found.append(WalkStatus(line, "not started"))
            else:
                current: list[int] = []
                levels: list[tuple[int, int]] = []
                _current_line(pos, attacker, lookup, current, levels)
                found.append(WalkStatus(line, "walking", settled, refuted, pos.move_text([*pos.moves, *current]),
                                        levels))
    finally:
        sys.setrecursionlimit(limit)
    return found


def _current_line(pos: Position, attacker: int, lookup: Callable[[Position], bool | None], line: list[int],
                  levels: list[tuple[int, int]]) -> None:
    """Follow the walk's current line below ``pos`` (not settled itself) into ``line``, with the settled
    and all attacker moves at each attacker position on it in ``levels``."""

    def settled_after(cell: int) -> bool:
        pos.play(cell)
        found = lookup(pos) is not None
        pos.undo()
        return found

    def settled_first(cell: int) -> int:  # how many of the attacker's first moves after ``cell`` are settled
        pos.play(cell)
        found = 0 if pos.is_over else sum(1 for _ in itertools.takewhile(settled_after, pos.legal_moves()))
        pos.undo()
        return found

    moves = pos.legal_moves()
    if pos.to_move == attacker:
        done = list(map(settled_after, moves))
        levels.append((sum(done), len(moves)))
        if all(done):
            return
        cell = moves[done.index(False)]  # the walk follows the attacker's moves in this order
    else:
        counts = list(map(settled_first, moves))
        if max(counts, default=0) == 0:
            return
        cell = moves[counts.index(max(counts))]
    line.append(cell)
    pos.play(cell)
    _current_line(pos, attacker, lookup, line, levels)
    pos.undo()
