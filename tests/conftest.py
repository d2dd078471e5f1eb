"""Shared test settings: hypothesis profiles and the test tiers.

Two tiers and one opt-in:

* the fast tier, ``pytest -m "not slow"``: under a minute on two cores, and every
  module of the package is imported and exercised by at least one of its tests;
* the full suite, ``pytest``: everything (the fast tier plus the tests marked ``slow``);
* ``verylong``: long searches, skipped unless ``--runslow`` is given, in both tiers.

The ``slow`` mark is given here, from :data:`SLOW` (file -> test functions), so
the list of what the fast tier leaves out is in one place; each entry took
about a second or more (``pytest --durations=0``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

# "ci" (the default) keeps every property test fast enough for the whole suite
# to run in a few minutes; "thorough" runs many more examples on request:
#     HYPOTHESIS_PROFILE=thorough python -m pytest tests
settings.register_profile(
    "ci",
    deadline=None,
    max_examples=100,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile(
    "thorough",
    deadline=None,
    max_examples=2000,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


ALL = frozenset({"*"})

#: The tests left out of the fast tier: test file (relative to tests/) -> test function names (every
#: parametrization), or ALL for the whole file.
SLOW: dict[str, frozenset[str] | set[str]] = {
    "test_connect_kernel.py": {"test_scores_agree_with_exhaustive_minimax_on_larger_boards"},
    "test_package.py": ALL,
    "test_prove.py": {  # whole proofs by one command: about 90 s (9x4k4) and 2 minutes (Connect Four 7x4)
        "test_a_win_walked_from_the_proof_search_s_table",
        "test_connect_four_7x4_by_one_command",
        "test_small_results_by_one_command",
    },  # builds the sdist and the wheel (a minute or more)
    "papers/test_gyorffy_torus.py": {
        "test_8x8_torus_classes_hold_every_labelled_pairing",
        "test_hex7_reproduction_agrees",
        "test_hexagonal_6x6_torus_has_26_classes",
    },
    "papers/test_steele_larremore.py": {
        "test_k3_one_row_draws_by_two_independent_strategies",
        "test_misere_connect_four_is_a_second_player_win_by_take_even",
    },
    "papers/test_tung_lau.py": {
        "test_4x3k3_opening_b2_wins_with_a_checked_strategy",
    },
    "papers/test_tung_lau_pairings.py": {
        "test_fewer_rows_than_k",
        "test_two_k_minus_one_family",
    },
    "papers/test_uiterwijk_set_matching.py": {
        "test_example_position_is_proved_in_one_node",
    },
    "test_certificates.py": {
        "test_solve_proof_of_a_draw_without_a_pairing_is_a_draw_proof",
    },
    "test_cli.py": {
        "test_a_closed_pipe_ends_quietly",
    },
    "test_docs.py": {
        "test_long_console_examples_print_what_they_show",
    },
    "test_disproof.py": {
        "test_positions_in_play_give_trees_or_refuse",
        "test_tampered_trees_are_rejected",
        "test_the_defender_moves_near_the_root_come_from_a_solve_s_jobs",
    },
    "test_draw_certificates.py": {
        "test_a_job_that_finds_a_win_ends_the_walk",
        "test_draws_get_certificates_that_pass_the_checker",
        "test_finished_jobs_are_read_back_from_the_checkpoint",
        "test_jobs_continue_a_one_process_walk_and_back",
        "test_jobs_on_two_processes_give_a_tree_that_checks",
    },
    "test_draw_kernel.py": {
        "test_random_tampering_gets_the_same_sentence_from_both",
        "test_the_shipped_7x7k5_draw_checks_the_same_compiled",
        "test_truncated_and_extra_tokens_are_refuted_by_both",
    },
    "test_extract.py": {
        "test_the_maker_breaker_strategy_with_knowledge_holds",
    },
    "test_extract_budgets.py": {
        "test_kinarow_solve_proof_of_connect_four_stops_at_its_budget",
        "test_kinarow_solve_proof_shows_the_walk_and_stops_on_a_signal",
    },
    "test_game.py": {
        "test_arbitrary_text_either_parses_canonically_or_raises_game_spec_error",
    },
    "test_matching.py": {
        "test_4x4k4_is_a_draw_in_one_node_with_a_certificate",
        "test_knowledge_never_changes_a_value",
        "test_triangle_is_a_breaker_win_with_a_checked_matching_set",
    },
    "test_limits.py": {
        "test_the_parallel_solve_notes_that_no_line_fits",  # starts worker processes
    },
    "test_misere.py": {
        "test_settle_by_strategy_solver_or_open",
    },
    "test_notebook.py": {
        "test_ipython_shows_the_pictures_and_the_same_plain_text",  # starts Python with IPython
        "test_the_example_notebook_runs_and_shows_pictures",  # starts a Jupyter kernel
    },
    "test_pairing.py": {
        "test_every_encoding_gives_the_same_answer",
    },
    "test_parallel.py": {
        "test_a_resumed_solve_follows_deeper_checkpointed_jobs",
        "test_a_stopped_draw_proof_says_how_far_it_got",
        "test_ctrl_c_keeps_the_draw_proof_walk",
        "test_ctrl_c_stops_the_workers_cleanly",
        "test_following_the_checkpoint_finds_exactly_the_boards_with_stored_work_below",
        "test_jobs_split_while_they_run_keep_the_value_and_certificate",
        "test_settle_by_draw_proof_in_jobs_resumes_from_its_checkpoint",
        "test_settle_by_draw_proof_writes_a_checked_certificate",
        "test_settle_writes_certificates_and_logs",
        "test_stopped_solve_resumes_from_its_checkpoint",
        "test_two_workers_agree_with_one_process",
        "test_two_workers_win_certificates_pass_the_checker",
    },
    "test_parallel_cluster.py": {
        "test_cluster_agrees_with_one_process",
        "test_cluster_time_limit_stops_its_jobs",
        "test_cluster_win_certificate",
    },
    "test_pool.py": {
        "test_a_target_without_cells_says_it_runs_in_one_process",
        "test_ctrl_c_stops_the_table",
        "test_misere_cells_with_skips_are_the_same_on_four_workers",
        "test_misere_reports_are_the_same_on_two_workers",
        "test_pairing_table_is_the_same_on_four_workers",
        "test_sigterm_stops_a_walk_on_workers_and_keeps_what_they_settled",
    },
    "test_sat.py": {
        "test_a_signal_during_a_long_solve_stops_it_cleanly",
    },
    "test_shipped_certificates.py": ALL,
    "test_solve.py": {
        "test_a_new_root_starts_without_the_earlier_roots_move_history",
    },
    "test_site.py": {
        "test_the_site_builds_strictly",  # mkdocs build --strict with the API reference: about 12 s
    },
    "test_solver_bruteforce.py": ALL,
    "test_store.py": {
        "test_pairing_table_ctrl_c_says_how_far_it_got",
        "test_pairing_table_resumes_after_kill_9",
    },
    "test_strategies.py": {
        "test_verified_outcomes_never_contradict_the_solver",
    },
    "test_strong.py": {
        "test_connect4_lengths_match_pons_scores_on_all_300_positions",
        "test_lengths_agree_with_exhaustive_minimax_on_small_games",
    },
    "test_tiling.py": {
        "test_cli_search_zetters",
        "test_named_tilings_check_and_runs_agree_with_a_brute_force_patch",
        "test_zetters_description_only_fits_a_block_tiled_with_its_mirror_image",
    },
    "test_torus_count.py": {
        "test_hex_orbits_hold_every_labelled_pairing",
        "test_hexagonal_count_agrees_with_brute_force",
    },
    "test_torus.py": {
        "test_hex_classes_agree_with_a_brute_force_count_under_all_432_symmetries",
        "test_transitions_are_undone_by_the_reverse_transition",
    },
    "test_walk.py": {
        "test_a_long_check_stops_cleanly_on_a_signal",
        "test_every_changed_move_is_judged_alike_by_both_checkers_and_by_a_reader_written_here",
        "test_the_check_reports_its_progress",
    },
    "test_web.py": {
        "test_browser_an_opened_certificate_is_shown_not_played",
        "test_browser_matching_set_and_a_proven_strategy",
        "test_browser_pairing_overlay_and_errors",
        "test_browser_play_prove_download_and_check",
        "test_browser_refuses_stale_and_doubled_moves",
        "test_browser_shows_the_analysis_and_the_winning_line_on_a_phone",
        "test_kinarow_serve_command_starts_answers_and_stops",
        "test_matching_set_is_drawn_and_its_certificate_checks",
    },
    "test_web_limits.py": {
        "test_clients_trickling_their_headers_are_closed_and_others_are_served",
        "test_the_server_stops_cleanly_during_a_proof",
        "test_two_proofs_at_once_leave_the_engine_to_other_games",
    },
    "test_web_load.py": {
        "test_fuzzed_json_bodies_get_an_answer_or_one_sentence",
        "test_the_server_survives_a_mixed_load",
    },
}

TESTS = Path(__file__).resolve().parent


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked verylong")


def pytest_configure(config):
    config.addinivalue_line("markers", "verylong: a long search; skipped unless --runslow is given")
    config.addinivalue_line("markers", "slow: left out of the fast tier (-m \"not slow\"); see SLOW in conftest.py")


def is_slow(file: str, function: str) -> bool:
    names = SLOW.get(file, ())
    return names is ALL or function in names


@pytest.hookimpl(tryfirst=True)  # before -m selects on the marks
def pytest_collection_modifyitems(config, items):
    skip_verylong = pytest.mark.skip(reason="long search; run with --runslow")
    runslow = config.getoption("--runslow")
    for item in items:
        try:
            file = item.path.relative_to(TESTS).as_posix()
        except ValueError:
            file = ""
        if "verylong" in item.keywords or is_slow(file, getattr(item, "originalname", item.name)):
            item.add_marker(pytest.mark.slow)
        if not runslow and "verylong" in item.keywords:
            item.add_marker(skip_verylong)


@pytest.fixture(autouse=True)
def _private_results_store(tmp_path_factory, monkeypatch):
    """Each test gets its own results store, so no answer comes from an earlier test or the user's cache."""
    monkeypatch.setenv("KINAROW_STORE", str(tmp_path_factory.mktemp("store") / "results.sqlite"))


@pytest.fixture(scope="session", autouse=True)
def _search_kernels_ready():
    """Each search's kernels loaded (or, where numba's cache lacks them, compiled once) before the first test:
    a command a test runs then prints nothing of a compile on stderr (``kinarow: compiling ...``, which a first
    run says), whatever ran on this machine before."""
    from kinarow import Game, Searcher
    from kinarow.search.connect import ScoreSearcher
    from kinarow.search.proof_search import ProofSearcher

    Searcher("3x3k3")  # the alpha-beta kernel, prepared as a Searcher is made
    ScoreSearcher("4x4k3:gravity", tt_mb=1).prepare()
    ProofSearcher("4x4k4", tt_mb=1).attacker_wins(Game("4x4k4").start(), 1, max_nodes=1)
