"""A design released gradually is empty afterwards, and its records are freed."""

import sys

from designer.generators import GENERATORS
from designer.model.bulk import release_gradually


def test_release_gradually_empties_the_design_and_frees_its_records():
    design = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2)
    links = design.link_count()
    assert links > 0
    link = next(iter(design.iter_links()))
    held = sys.getrefcount(link)
    release_gradually(design, step=7)
    assert design.device_count() == 0 and design.link_count() == 0 and not list(design.iter_links())
    assert sys.getrefcount(link) == held - 2  # the design's two references (by id, in order) are gone


def test_release_gradually_empties_the_index_of_link_ends_built_so_far():
    design = GENERATORS["leaf-spine"].build(leaves=2, hosts_per_leaf=8, spines=2).copy()  # index left to build
    assert design.index_link_ends(limit=40) is False  # a build under way
    partial = design._ends_pending[0]
    assert partial
    release_gradually(design, step=7)
    assert not partial and design.link_count() == 0
