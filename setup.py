"""Package list for setuptools; everything else is in pyproject.toml.

pyproject.toml cannot combine found packages with packages mapped from other folders, so they
are listed here: every ``designer`` package, plus the data-only ``designer.resources``,
``designer.sample_designs`` and ``designer.docs`` (folders and files in pyproject.toml's package-dir and package-data).
"""

from setuptools import find_packages, setup
from setuptools.command.build_py import build_py

DATA_ONLY = ("designer.resources", "designer.sample_designs", "designer.docs")


class BuildPy(build_py):
    """Data-only packages ship their data, not the scripts kept next to it (make_samples.py)."""

    def find_package_modules(self, package, package_dir):
        return [] if package in DATA_ONLY else super().find_package_modules(package, package_dir)


setup(
    packages=[*find_packages(include=["designer", "designer.*"]), *DATA_ONLY],
    cmdclass={"build_py": BuildPy},
)
