"""Reading YAML safely for the importers: plain data only, with each value's line."""

from __future__ import annotations

import re
from typing import Any

from designer.io.importers.base import ImportFileError

#: Aliases (``*name``) a YAML file may use: a few in real files; millions expand a small file
#: into a huge walk ("billion laughs").
MAX_ALIASES = 1000


class Located:
    """A YAML node's data and lines: ``value`` is the plain data, ``line`` its first line (1-based);
    ``child(key)`` / ``items()`` give the located children of a mapping or sequence."""

    def __init__(self, node: Any, data: Any) -> None:
        self.node = node
        self.value = data
        self.line = node.start_mark.line + 1 if node is not None else 0

    def child(self, key: str) -> Located | None:
        import yaml

        if not isinstance(self.node, yaml.MappingNode) or not isinstance(self.value, dict):
            return None
        for k, v in self.node.value:
            if getattr(k, "value", None) == key and key in self.value:
                return Located(v, self.value[key])
        return None

    def items(self) -> list[Located]:
        import yaml

        if isinstance(self.node, yaml.SequenceNode) and isinstance(self.value, list):
            return [Located(n, d) for n, d in zip(self.node.value, self.value, strict=False)]
        if isinstance(self.node, yaml.MappingNode) and isinstance(self.value, dict):
            return [Located(v, self.value.get(k.value)) for k, v in self.node.value if k.value in self.value]
        return []


def load_yaml(text: str, source: str) -> Located:
    """The document of ``text`` with its lines; ImportFileError (with the line) when it does not parse."""
    try:
        import yaml
    except ImportError:  # pragma: no cover - a dependency
        raise ImportFileError(f"{source}: reading YAML needs PyYAML (pip install pyyaml)") from None
    if text.count("*") > MAX_ALIASES and len(re.findall(r"(?:^|[\s\[,])\*[\w-]+", text)) > MAX_ALIASES:
        raise ImportFileError(f"{source}: more than {MAX_ALIASES:,} YAML aliases: not a topology file")
    loader = yaml.SafeLoader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise ImportFileError(f"{source}: an empty YAML document")
        data = loader.construct_document(node)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = f"line {mark.line + 1}: " if mark is not None else ""
        raise ImportFileError(f"{source}: {where}not readable YAML ({e.problem or e.context})") from None
    except yaml.YAMLError as e:
        raise ImportFileError(f"{source}: not readable YAML ({' '.join(str(e).split())[:120]})") from None
    finally:
        loader.dispose()
    return Located(node, data)
