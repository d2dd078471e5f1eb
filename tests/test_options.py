"""Options as values (:mod:`kinarow.search.options`): budgets and choices in frozen dataclasses whose fields and
rules are checked once, where they are made; solve() and the parallel solve take them (the old keywords folded into
them first), and the router of :func:`kinarow.search.solve.solve` is one table of routes."""

from __future__ import annotations

import dataclasses
import inspect
import re

import pytest

from helpers import run
from kinarow import Game, KinarowError, solve
from kinarow.limits import DEFAULT_KNOWLEDGE
from kinarow.search import parallel
from kinarow.search import solve as solve_module
from kinarow.search.options import PROOF_TABLE_RULE, SHARE_RULE, Limits, OptionError, SolveOptions
from kinarow.search.parallel import ParallelOptions
from kinarow.search.solve import ROUTES, Ask, route


# -- the bundles check their fields once ---------------------------------------------------------------------------
@pytest.mark.parametrize(("fields", "words"), [
    ({"max_nodes": 0}, "max_nodes must be a positive whole number, not 0"),
    ({"max_nodes": 10**26}, "10**18"),
    ({"time_limit": float("nan")}, "time_limit"),
    ({"tt_mb": 10**9}, "16384"),
])
def test_limits_refuse_a_bad_budget_in_one_sentence(fields, words):
    with pytest.raises(KinarowError, match=re.escape(words)) as info:
        Limits(**fields)
    assert "\n" not in str(info.value)


def test_limits_and_options_are_values():
    limits = Limits(max_nodes=100, time_limit=2)
    assert (limits.max_nodes, limits.time_limit, limits.tt_mb) == (100, 2.0, None)
    assert isinstance(limits.time_limit, float) and limits == Limits(100, 2.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        limits.max_nodes = 5  # type: ignore[misc]
    options = SolveOptions()
    assert options.knowledge == DEFAULT_KNOWLEDGE and options.search == "auto" and not options.wants_strategy
    assert SolveOptions(proof=True).wants_strategy
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.share = True  # type: ignore[misc]
    with pytest.raises(OptionError, match=SHARE_RULE[0]):
        dataclasses.replace(SolveOptions(search="proof", walk=True, share=True), walk=False)  # checked again


@pytest.mark.parametrize(("fields", "words"), [
    ({"share": True}, "give it with search='proof' and walk=True"),
    ({"share": True, "search": "proof"}, "give it with search='proof' and walk=True"),
    ({"proof_table": "t.npz"}, "give a file name and search='proof'"),
    ({"proof_table": "", "search": "proof"}, "give a file name and search='proof'"),
    ({"search": "proof", "strong": True}, "leave out strong and searcher"),
    ({"threads": 0}, "threads must be a whole number from 1 to 64"),
    ({"walk": "yes"}, "walk must be True or False"),
    ({"knowledge": "all"}, "the knowledge level 'all' is unknown"),
    ({"search": "fast"}, "the search 'fast' is unknown"),
])
def test_solve_options_refuse_a_broken_rule_in_one_sentence(fields, words):
    with pytest.raises(KinarowError, match=words) as info:
        SolveOptions(**fields)
    assert "\n" not in str(info.value)
    with pytest.raises(KinarowError, match=words):
        solve("3x3k3", **fields)  # the compatibility form: the same rule, from the same place


@pytest.mark.parametrize(("fields", "words"), [
    ({"guide": "g.sqlite"}, "give it with question='first-wins' or 'second-wins'"),
    ({"share": True, "search": "proof"}, "give it with strategy=True and search='proof'"),
    ({"share": True, "strategy": True, "search": "alpha-beta"}, "give it with strategy=True and search='proof'"),
    ({"question": "who-wins"}, "the question 'who-wins' is unknown"),
    ({"workers": True}, "workers must be a positive whole number"),
    ({"search": "fast"}, "search must be one of auto, proof, alpha-beta, not 'fast'"),
    ({"table": 3}, "names the file"),
])
def test_parallel_options_refuse_a_broken_rule_in_one_sentence(fields, words):
    with pytest.raises(KinarowError, match=words):
        ParallelOptions(**fields)
    with pytest.raises(KinarowError, match=words):
        parallel.solve("3x3k3", **fields)


def test_a_rule_between_options_is_said_in_the_command_lines_words(capsys):
    """The CLI relies on SolveOptions for its rules: the sentence it prints is the rule's own."""
    for args, rule in ((["--share"], SHARE_RULE), (["--walk", "--share", "--workers", "2"], SHARE_RULE),
                       (["--table", "t.npz"], PROOF_TABLE_RULE)):
        code, _, err = run(capsys, "solve", "4x4k3", *args, "--no-store")
        assert code == 2 and err.strip() == f"kinarow: error: {rule[1]}", err
        with pytest.raises(OptionError) as info:
            SolveOptions(**({"share": True} if rule is SHARE_RULE else {"proof_table": "t.npz"}))
        assert (str(info.value), info.value.command_line) == rule


# -- solve() and the parallel solve take the bundles -------------------------------------------------------------
def test_solve_takes_a_handful_of_arguments_and_the_old_keywords_fold_into_them():
    named = [p for p in inspect.signature(solve_module.solve).parameters.values() if p.kind != p.VAR_KEYWORD]
    assert len(named) <= 8
    bundled = solve("5x4k4", limits=Limits(max_nodes=10**6, tt_mb=4), options=SolveOptions(knowledge="none"))
    loose = solve("5x4k4", max_nodes=10**6, tt_mb=4, knowledge="none")
    assert (bundled.value, bundled.nodes, bundled.best_move) == (loose.value, loose.nodes, loose.best_move)
    with pytest.raises(KinarowError, match="takes max_nodes either in limits or as a keyword, not both"):
        solve("3x3k3", limits=Limits(), max_nodes=5)
    with pytest.raises(KinarowError, match="takes walk either in options or as a keyword, not both"):
        solve("3x3k3", options=SolveOptions(), walk=True)
    with pytest.raises(KinarowError, match="limits must be a Limits"):
        solve_module.solve("3x3k3", limits={"max_nodes": 5})  # type: ignore[arg-type]
    with pytest.raises(KinarowError, match="solve\\(\\) has no option 'max_node'"):
        solve_module.solve("3x3k3", max_node=5)  # type: ignore[call-arg]


def test_the_parallel_solve_takes_the_bundles_too():
    named = [p for p in inspect.signature(parallel.solve).parameters.values() if p.kind != p.VAR_KEYWORD]
    assert len(named) <= 6
    bundled = parallel.solve("4x4k3", moves="b2", limits=Limits(tt_mb=4),
                             options=ParallelOptions(workers=1, jobs=4, question="first-wins"))
    loose = parallel.solve("4x4k3", moves="b2", tt_mb=4, workers=1, jobs=4, question="first-wins")
    assert (bundled.value, bundled.nodes, bundled.jobs) == (loose.value, loose.nodes, loose.jobs)
    with pytest.raises(KinarowError, match="takes workers either in options or as a keyword, not both"):
        parallel.solve("3x3k3", options=ParallelOptions(), workers=1)


# -- the router is one table -----------------------------------------------------------------------------------
def _route_name(game: str, moves: str = "", store: object = None, **fields: object) -> str:
    position = Game(game).position(moves)
    way, _ = route(Ask(position, Limits(), SolveOptions(**fields), store=store))  # type: ignore[arg-type]
    return way.name


def test_each_question_takes_the_route_the_table_names(tmp_path):
    from kinarow.store import Store

    assert [way.name for way in ROUTES] == ["strong score search", "store", "finished position",
                                           "proof search for a certificate", "score search", "proof search",
                                           "alpha-beta"]
    assert _route_name("5x4k4:gravity", strong=True) == "strong score search"
    assert _route_name("3x3k3", "a1 a2 b1 b2 c1") == "finished position"
    assert _route_name("4x4k4:gravity") == "score search"
    assert _route_name("4x4k4:gravity", strategy=True) == "alpha-beta"  # its Searcher asks the score kernel
    assert _route_name("7x6k5") == "proof search"
    assert _route_name("7x6k5", proof=True) == "proof search for a certificate"
    assert _route_name("7x6k5", strategy=True) == "alpha-beta"
    assert _route_name("4x4k4", search="proof") == "proof search"
    assert _route_name("4x4k4") == "alpha-beta"
    store = Store(tmp_path / "results.sqlite")
    assert _route_name("4x3k3", store=store) == "alpha-beta"
    solve("4x3k3", store=store)  # kept by the route that answered ...
    assert _route_name("4x3k3", store=store) == "store"  # ... and answered from the store the next time


def test_a_stopped_proof_search_is_not_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # search="proof", proof=True and a budget: the proof search runs once, stops, and its answer is the result
    calls = []
    real = solve_module._proof_search

    def counted(ask, **keywords):  # type: ignore[no-untyped-def]
        calls.append(ask.limits.max_nodes)
        return real(ask, **keywords)

    monkeypatch.setattr(solve_module, "_proof_search", counted)
    result = solve("7x7k5", search="proof", proof=True, max_nodes=2_000, store=None)
    assert result.value == "unknown" and result.stopped == "node limit"
    assert len(calls) == 1
