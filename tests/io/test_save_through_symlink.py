"""Saving to a symbolic link writes the file it points to, atomically, and keeps the link."""

import os

from designer.io import atomic_write_text, load_design, save_design
from designer.model import Design


def test_saving_through_a_link_replaces_the_target_and_keeps_the_link(tmp_path):
    real = tmp_path / "designs" / "fabric.json"
    real.parent.mkdir()
    real.write_text("old")
    os.chmod(real, 0o640)
    link = tmp_path / "current.json"
    link.symlink_to(os.path.relpath(real, tmp_path))
    save_design(Design("through the link"), link)
    assert link.is_symlink()
    assert load_design(real).name == "through the link"
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["fabric.json"]  # no temporary file left


def test_a_chain_of_links_and_a_dangling_link_write_the_final_target(tmp_path):
    real = tmp_path / "real.json"
    (tmp_path / "b.json").symlink_to(real)
    (tmp_path / "a.json").symlink_to(tmp_path / "b.json")
    atomic_write_text(tmp_path / "a.json", "new\n")
    assert real.read_text() == "new\n"
    assert (tmp_path / "a.json").is_symlink() and (tmp_path / "b.json").is_symlink()
