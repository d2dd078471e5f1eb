"""Parallel solving: split the game tree at a frontier and solve the parts as independent jobs.

::

    position --expand (symmetry-reduced, centre first)--> frontier DAG            frontier.py
                                                             |  leaves = jobs
    jobs --local processes, or a Dask cluster--> exact values (each by kinarow.solve)   jobs.py, backends.py
                                                             |
    values --bounds back-up (minimax over the DAG)--> the root's value            coordinator.py
    a win's strategy: the DAG's part + each leaf's walk, merged                    merge.py
    finished jobs and walks --> an SQLite file, read back by a resumed solve       checkpoint.py
    another width's checkpoint --the moves that won there--> splits at once        guide.py

Imports run one way, counting those inside functions too: checkpoint <- frontier
<- jobs <- backends <- coordinator, which also uses merge (above jobs: it reads a
job run's parts through frontier and jobs) and guide (above frontier); rewalk
uses the checkpoint only. The names below are the public API (``solve`` takes its budgets as
:class:`kinarow.search.options.Limits` and its choices as :class:`ParallelOptions`); the modules hold the rest
(tuning constants such as ``coordinator.SPLIT_AFTER_SECONDS`` live in the
module that reads them). See docs/parallel.md for how and why.
"""

from kinarow.search.parallel.backends import ClusterError
from kinarow.search.parallel.checkpoint import JobStore
from kinarow.search.parallel.coordinator import ParallelOptions, ParallelResult, solve
from kinarow.search.parallel.frontier import (
    DRAW,
    EXACT,
    FIRST,
    FIRST_WINS,
    IMMEDIATE,
    INNER,
    JOB,
    SECOND,
    SECOND_WINS,
    STORED,
    TERMINAL,
    Frontier,
    Node,
    expand,
    stored_frontier,
    stored_value,
)

__all__ = [
    "DRAW", "EXACT", "FIRST", "FIRST_WINS", "IMMEDIATE", "INNER", "JOB", "SECOND", "SECOND_WINS", "STORED",
    "TERMINAL", "ClusterError", "Frontier", "JobStore", "Node", "ParallelOptions", "ParallelResult", "expand", "solve",
    "stored_frontier", "stored_value",
]
