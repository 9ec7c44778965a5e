"""Test configuration: Qt runs offscreen, user catalogs and settings are isolated."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def pytest_configure(config):
    # Never read or write the developer's own configuration while testing.
    import tempfile

    home = tempfile.mkdtemp(prefix="topo-designer-test-home-")
    os.environ["XDG_CONFIG_HOME"] = os.path.join(home, "config")
    os.environ["XDG_DATA_HOME"] = os.path.join(home, "data")
