"""Test configuration: Qt runs offscreen, user catalogs and settings are isolated."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_collection_modifyitems(config, items):
    """Files with a slow test (marked ``slow``) run first: spread over parallel workers, they start
    at once instead of leaving one worker busy after the others have finished."""
    slow = {item.nodeid.split("::")[0] for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.nodeid.split("::")[0] not in slow)  # stable: order kept within each


#: The session's cache folder (pytest_configure), under which each test gets its own.
_CACHE_BASE = [""]


def pytest_configure(config):
    # Never read or write the developer's own configuration while testing.
    import tempfile

    home = tempfile.mkdtemp(prefix="topo-designer-test-home-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
    os.environ["XDG_CACHE_HOME"] = _CACHE_BASE[0] = os.path.join(home, "cache")


# ---------------------------------------------------------------- shared designs
# Large designs are built or read once per test process and shared by the tests that only read
# them (a 16,384-GPU design takes seconds to build, to load and to check). A test that edits a
# design builds or loads its own.
import functools  # noqa: E402
import itertools  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

_CACHES = itertools.count()


@pytest.fixture(autouse=True)
def _own_cache_folder(monkeypatch):
    """Each test starts with no record of files checked before (designer.io.checked_files): a file
    another test read must not take a test's reading past the checks it exercises."""
    monkeypatch.setenv("XDG_CACHE_HOME", os.path.join(_CACHE_BASE[0], f"test-{next(_CACHES)}"))


SAMPLE_FOLDER = Path(__file__).resolve().parents[1] / "sample_designs"


class _Shelf:
    """Designs made on first use, then kept for the session. Tests must not edit them."""

    def __init__(self, make):
        self._make = functools.cache(make)

    def __getitem__(self, key):
        return self._make(key)


@pytest.fixture(scope="session")
def built_samples():
    """``built_samples[file]``: the sample design of that file name as the generators build it now."""
    from designer.generators.samples import SAMPLES

    by_file = {s.file: s for s in SAMPLES}
    return _Shelf(lambda file: by_file[file].build())


@pytest.fixture(scope="session")
def loaded_samples():
    """``loaded_samples[file]``: the shipped sample file of that name, loaded."""
    from designer.io import load_design

    return _Shelf(lambda file: load_design(SAMPLE_FOLDER / file))
