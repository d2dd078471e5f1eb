"""numba's cached kernels carry a stamp of every kernel module's source (:mod:`kinarow.kernel_cache`)."""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import pytest

from kinarow import kernel_cache

PACKAGE = Path(kernel_cache.__file__).parent


def _caches_kernels(tree: ast.Module) -> bool:
    return any(isinstance(node, ast.keyword) and node.arg == "cache" and isinstance(node.value, ast.Constant)
               and node.value.value is True for node in ast.walk(tree))


def _kernel_files() -> set[str]:
    return {path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py")
            if _caches_kernels(ast.parse(path.read_text(encoding="utf-8")))}


def test_the_list_names_every_module_with_cached_kernels() -> None:
    assert set(kernel_cache.KERNEL_FILES) == _kernel_files()


@pytest.mark.parametrize("name", kernel_cache.KERNEL_FILES)
def test_each_kernel_module_imports_the_stamp_before_its_first_kernel(name: str) -> None:
    tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
    imports = [node.lineno for node in tree.body if isinstance(node, ast.ImportFrom) and node.module == "kinarow"
               and any(alias.name == "kernel_cache" for alias in node.names)]
    kernels = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and node.decorator_list]
    assert imports, f"{name} does not import kinarow.kernel_cache"
    assert not kernels or imports[0] < min(kernels)


def test_a_kernel_s_stamp_holds_every_kernel_module_s_source() -> None:
    from kinarow.engine import pns_kernel

    assert kernel_cache.INSTALLED
    locator = pns_kernel.dfpn._cache._impl.locator
    assert type(locator).__name__ == "KinarowLocator"
    own, every = locator.get_source_stamp()
    assert every == kernel_cache.kernels_stamp() and own


def test_an_edit_of_any_kernel_module_changes_the_stamp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in kernel_cache.KERNEL_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(PACKAGE / name, tmp_path / name)
    monkeypatch.setattr(kernel_cache, "PACKAGE", tmp_path)
    before = kernel_cache.kernels_stamp()
    assert kernel_cache.kernels_stamp() == before
    callee = tmp_path / "strategies" / "rules.py"  # a module the strategy verifier's kernels call
    callee.write_text(callee.read_text(encoding="utf-8") + "\n# an edit\n", encoding="utf-8")
    assert kernel_cache.kernels_stamp() != before
