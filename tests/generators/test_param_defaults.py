"""Each generator's defaults are written twice (build function signature, registry Param list): they agree."""

from __future__ import annotations

import inspect

import pytest

from designer.generators import GENERATORS


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_param_defaults_equal_the_build_function_defaults(kind):
    spec = GENERATORS[kind]
    signature = inspect.signature(spec.func).parameters
    for p in spec.params:
        assert p.name in signature, f"{kind}: {p.name} is not a parameter of {spec.func.__name__}"
        assert signature[p.name].default == p.default, (
            f"{kind}: {p.name} defaults to {p.default!r} in the registry but "
            f"{signature[p.name].default!r} in {spec.func.__name__}")


@pytest.mark.parametrize("kind", list(GENERATORS))
def test_every_build_function_parameter_is_declared(kind):
    spec = GENERATORS[kind]
    declared = {p.name for p in spec.params}
    keywords = {name for name, par in inspect.signature(spec.func).parameters.items()
                if par.kind is inspect.Parameter.KEYWORD_ONLY}
    assert keywords <= declared, f"{kind}: {sorted(keywords - declared)} have no Param"
