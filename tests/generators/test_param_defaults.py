"""Each generator's defaults are written once, in its Param list: the build functions take them from there."""

from __future__ import annotations

import inspect

import pytest

import designer.generators as generators
from designer.generators import GENERATORS


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_the_build_function_has_no_defaults_of_its_own(kind):
    spec = GENERATORS[kind]
    signature = inspect.signature(spec.func).parameters
    for p in spec.params:
        assert p.name in signature, f"{kind}: {p.name} is not a parameter of {spec.func.__name__}"
        assert signature[p.name].default is inspect.Parameter.empty, (
            f"{kind}: {p.name} has a default in {spec.func.__name__} as well as in its Param ({p.default!r}); "
            "keep it in the Param list only")


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_every_build_function_parameter_is_declared(kind):
    spec = GENERATORS[kind]
    declared = {p.name for p in spec.params}
    keywords = {name for name, par in inspect.signature(spec.func).parameters.items()
                if par.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords == declared, f"{kind}: {sorted(keywords ^ declared)} differ between the function and its Params"


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_the_public_build_function_builds_from_the_spec(kind, monkeypatch):
    spec = GENERATORS[kind]
    public = getattr(generators, "build_" + kind.replace("-", "_"))
    seen = {}
    monkeypatch.setattr(type(spec), "build", lambda self, catalog=None, **params: seen.update(
        kind=self.kind, catalog=catalog, params=params))
    public(None, probe=1)
    assert seen == {"kind": kind, "catalog": None, "params": {"probe": 1}}
