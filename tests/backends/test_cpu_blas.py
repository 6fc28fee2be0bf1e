"""Finding OpenBLAS, and the installers that provide it (no model, no mlx import)."""

from __future__ import annotations

import pathlib

import pytest

from agent_nb.backends.mlx.cpu_blas import INSTALL_COMMAND, find_openblas, well_known_paths

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = INSTALL_COMMAND.split()[-1]


def test_agent_nb_blas_overrides_the_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_NB_BLAS", "/opt/blas/libopenblas.so.0")
    assert find_openblas() == "/opt/blas/libopenblas.so.0"


def test_well_known_paths_cover_debian_fedora_and_conda(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONDA_PREFIX", "/opt/conda/envs/nb")
    paths = well_known_paths()
    assert any(p.endswith("-linux-gnu/openblas-pthread/libopenblas.so.0") for p in paths)
    assert "/usr/lib64/libopenblas.so.0" in paths
    assert "/opt/conda/envs/nb/lib/libopenblas.so.0" in paths


def test_ci_setup_and_binder_install_the_package_the_hint_names() -> None:
    assert f"apt_install {PACKAGE}" in (ROOT / ".ci" / "setup").read_text()
    lines = (ROOT / "binder" / "apt.txt").read_text().splitlines()
    assert PACKAGE in [ln.strip() for ln in lines if not ln.startswith("#")]
    assert INSTALL_COMMAND in (ROOT / "docs" / "troubleshooting.md").read_text()
