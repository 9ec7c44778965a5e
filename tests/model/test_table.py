"""The ordered record table: many records removed and put back in one pass, as one at a time would."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from designer.model.table import ONE_BY_ONE, Table


def _table(n: int) -> Table:
    t = Table()
    for i in range(n):
        t.insert(SimpleNamespace(id=f"r{i}"), None)
    return t


@pytest.mark.parametrize("seed", range(40))
def test_many_at_once_remove_and_put_back_as_one_at_a_time(seed):
    rng = random.Random(seed)
    n = rng.randint(0, 300)
    k = rng.randint(0, n)
    ids = rng.sample([f"r{i}" for i in range(n)], k)
    bulk, single = _table(n), _table(n)
    before = list(bulk.order)
    removed = bulk.remove_many(ids)
    assert [(o.id, i) for o, i in removed] == [(o.id, i) for o, i in (single.remove(x) for x in ids)]
    assert bulk.order == single.order and bulk.by_id == single.by_id
    bulk.insert_many(removed)
    for obj, index in reversed(removed):
        single.insert(obj, index)
    assert bulk.order == single.order == before and bulk.by_id == single.by_id


def test_the_one_pass_is_taken_above_the_threshold():
    t = _table(ONE_BY_ONE * 4)
    ids = [f"r{i}" for i in range(ONE_BY_ONE * 4 - 1, -1, -3)]  # from the end, every third
    removed = t.remove_many(ids)
    assert [i for _, i in removed] == [ONE_BY_ONE * 4 - 1 - 3 * j for j in range(len(ids))]
    t.insert_many(removed)
    assert [o.id for o in t.order] == [f"r{i}" for i in range(ONE_BY_ONE * 4)]
