"""Shared test settings: hypothesis profiles and the ``slow`` marker."""

from __future__ import annotations

import os

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


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: a long search; skipped unless --runslow is given")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--runslow"):
        return
    skip_slow = pytest.mark.skip(reason="slow search; run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip_slow)


@pytest.fixture(autouse=True)
def _private_results_store(tmp_path_factory, monkeypatch):
    """Each test gets its own results store, so no answer comes from an earlier test or the user's cache."""
    monkeypatch.setenv("KINAROW_STORE", str(tmp_path_factory.mktemp("store") / "results.sqlite"))
