"""Importer tests: Qt offscreen for the window test of File ▸ Import…."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
