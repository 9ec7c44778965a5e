"""Declarative generator parameters: one definition of each parameter's type, default, limits,
label and command-line flag, from which the CLI's ``--help``, the window's dialogs and every
refusal message are built.

A generator is a pure function ``build(catalog=None, **params) -> Design`` described by a
:class:`GeneratorSpec`: its kind, a one-line description and its :class:`Param` list.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from designer.model import Design, DesignError
from designer.model.bulk import gc_paused
from designer.model.catalog import Catalog


class GeneratorError(DesignError):
    """Generator parameters are impossible; the message names the limit that was crossed."""


PARAM_TYPES = ("int", "float", "bool", "str", "dims", "choice", "model", "cable")


def cli_flag(name: str) -> str:
    """The command-line option of parameter ``name``: ``gpus_per_node`` -> ``--gpus-per-node``."""
    return "--" + name.replace("_", "-")


#: How the Generate dialog labels each parameter (with its unit where it has one). The one table of
#: labels: the dialog, the refusal messages (:func:`setting`) and the tests read it; the parameter
#: name and its command-line flag go in the field's tooltip.
PARAM_LABELS = {
    # servers and racks
    "gpus_per_node": "GPUs per server",
    "gpu": "GPU model",
    "nic": "NIC model",
    "nvswitch": "NVLink switch fabric",
    "nvlink": "NVLink topology",
    "with_nics": "Scale-out NICs",
    "nodes_per_rack": "Servers per rack",
    "racks": "NVLink racks",
    "trays": "Compute trays per rack",
    "gpus_per_tray": "GPUs per tray",
    "racks_per_domain": "Racks per NVLink domain",
    "scaleout": "Scale-out network",
    # switch fabrics
    "switch": "Leaf switch model",
    "spine_switch": "Spine switch model",
    "core_switch": "Core switch model",
    "leaves": "Leaf switches",
    "hosts_per_leaf": "Host ports per leaf",
    "spines": "Spine switches",
    "oversubscription": "Leaf oversubscription (x:1)",
    "pods": "Pods",
    "leaves_per_pod": "Leaf switches per pod",
    "spines_per_pod": "Spine switches per pod",
    "spine_oversubscription": "Spine oversubscription (x:1)",
    "k": "Switch radix k (ports)",
    "tiers": "Switch tiers",
    # rail-optimized
    "sus": "Scalable units",
    "nodes_per_su": "Servers per SU",
    "sus_per_pod": "SUs per pod",
    "ufm": "UFM appliance",
    "ufm_links": "UFM appliance links",
    # direct networks
    "dims": "Size per dimension (AxBxC)",
    "wrap": "Wrap-around links",
    "rack_dims": "Block per rack (AxBxC)",
    "link_speed_gbps": "Link speed (Gb/s)",
    "n": "Dimensions n (2^n GPUs)",
    "p": "Terminals per router (p)",
    "a": "Routers per group (a)",
    "h": "Global links per router (h)",
    "g": "Groups (g)",
    # cabling
    "cable": "Cable for every link",
    "copper_max_m": "Copper reach (m)",
    "long_medium": "Long-reach medium",
    "racks_per_row": "Racks per row",
    "breakout": "Switch port breakout",
}

#: Labels a generator gives a parameter that means something else there (kind, name) -> label.
KIND_PARAM_LABELS = {
    ("dragonfly", "switch"): "Router switch model",
    ("fat-tree", "switch"): "Switch model (every tier)",
}

#: How the Generate dialog names each generator (its kind id goes in the tooltip).
GENERATOR_TITLES = {
    "server": "HGX server",
    "nvl72": "GB200 NVL72 racks",
    "leaf-spine": "Leaf-spine (2-tier Clos)",
    "clos3": "3-tier Clos",
    "fat-tree": "k-ary fat-tree",
    "rail-optimized": "Rail-optimized (SuperPOD)",
    "torus": "Torus / mesh",
    "hypercube": "Hypercube",
    "dragonfly": "Dragonfly",
}


def param_label(name: str, kind: str = "") -> str:
    """The words naming parameter ``name`` (of generator ``kind``) in the Generate dialog.

    >>> param_label("sus"), param_label("copper_max_m"), param_label("switch", "dragonfly")
    ('Scalable units', 'Copper reach (m)', 'Router switch model')
    """
    return KIND_PARAM_LABELS.get((kind, name)) or PARAM_LABELS.get(name) or name.replace("_", " ").capitalize()


def in_sentence(label: str) -> str:
    """A label as it reads inside a sentence: ``Switch tiers`` -> ``switch tiers``, ``UFM links`` kept."""
    return label[:1].lower() + label[1:] if label[1:2].islower() else label


def setting(name: str, value: Any = None, *, metavar: str = "") -> str:
    """Advice naming a parameter as the dialog labels it and as the command line takes it.

    >>> setting("tiers", 3), setting("scaleout", True), setting("nvswitch", metavar="MODEL")
    ('switch tiers = 3 (--tiers 3)', 'scale-out network on (--scaleout)', 'NVLink switch fabric (--nvswitch MODEL)')
    """
    label, flag = in_sentence(param_label(name)), cli_flag(name)
    if value is True:
        return f"{label} on ({flag})"
    if value is False:
        return f"{label} off (--no-{flag[2:]})"
    if value is not None:
        return f"{label} = {value:g} ({flag} {value:g})" if isinstance(value, float) else \
            f"{label} = {value} ({flag} {value})"
    return f"{label} ({flag} {metavar})" if metavar else f"{label} ({flag})"


@dataclass(frozen=True)
class Param:
    """One generator parameter.

    ``type`` is one of PARAM_TYPES: ``model`` names a catalog component of kind ``model_kind``
    (``""`` allowed when ``default`` is ``""``: chosen automatically), ``cable`` names a catalog
    cable or ``""`` (chosen by reach), ``dims`` is a size like ``4x4x8``, ``choice`` is one of
    ``choices``. ``minimum``/``maximum`` bound ints and floats (and every size of ``dims``).
    """

    name: str
    type: str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    model_kind: str = ""

    def __post_init__(self) -> None:
        if self.type not in PARAM_TYPES:
            raise ValueError(f"parameter {self.name}: unknown type {self.type!r}")

    @property
    def cli_flag(self) -> str:
        return cli_flag(self.name)

    @property
    def label(self) -> str:
        """The Generate dialog's label (a generator may rename it: :meth:`GeneratorSpec.label_of`)."""
        return param_label(self.name)

    def limits_text(self) -> str:
        """The limits in words, e.g. ``2..64``, ``even``, ``one of aoc, optical``."""
        parts = []
        if self.type in ("int", "float", "dims"):
            lo = "" if self.minimum is None else f"{self.minimum:g}"
            hi = "" if self.maximum is None else f"{self.maximum:g}"
            if lo or hi:
                parts.append(f"{lo}..{hi}" if hi else f">= {lo}")
        if self.choices:
            parts.append("one of " + ", ".join(self.choices))
        if self.type == "model":
            parts.append(f"a catalog {self.model_kind} model" + (" ('' = automatic)" if self.default == "" else ""))
        if self.type == "cable":
            parts.append("a catalog cable id ('' = chosen by reach)")
        return "; ".join(parts)

    def coerce(self, kind: str, value: Any) -> Any:
        """``value`` checked and converted to this parameter's type; GeneratorError if out of limits."""
        what = f"{kind}: {self.name}"
        if self.type == "int":
            if isinstance(value, str) and value.isascii() and value.strip().lstrip("-").isdigit():
                value = int(value)
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, int):
                raise GeneratorError(f"{what} must be a whole number, got {value!r}")
            self._bounds(what, value)
            return value
        if self.type == "float":
            try:
                if isinstance(value, str) and not value.isascii():
                    raise ValueError(value)  # float() reads other scripts' digits; the command line does not
                v = float(value)
            except (TypeError, ValueError):
                raise GeneratorError(f"{what} must be a number, got {value!r}") from None
            if isinstance(value, bool) or not math.isfinite(v):
                raise GeneratorError(f"{what} must be a finite number, got {value!r}")
            self._bounds(what, v)
            return v
        if self.type == "bool":
            if isinstance(value, str) and value.lower() in ("true", "yes", "1", "false", "no", "0"):
                return value.lower() in ("true", "yes", "1")
            if not isinstance(value, bool):
                raise GeneratorError(f"{what} must be true or false, got {value!r}")
            return value
        if self.type == "dims":
            dims = parse_dims(kind, self.name, value)
            for d in dims:
                self._bounds(what + " (each size)", d)
            return dims
        if not isinstance(value, str):
            raise GeneratorError(f"{what} must be text, got {value!r}")
        if self.type == "choice" and value not in self.choices:
            raise GeneratorError(f"{what} must be one of {', '.join(self.choices)}, got {value!r}")
        return value

    def _bounds(self, what: str, v: float) -> None:
        if self.minimum is not None and v < self.minimum:
            raise GeneratorError(f"{what} must be >= {self.minimum:g}, got {v:g}")
        if self.maximum is not None and v > self.maximum:
            raise GeneratorError(f"{what} must be <= {self.maximum:g}, got {v:g}")


def parse_dims(kind: str, name: str, value: Any) -> tuple[int, ...]:
    """``'4x4x8'``, ``[4, 4, 8]`` or ``(4, 4, 8)`` -> ``(4, 4, 8)``."""
    if isinstance(value, str):
        parts = value.lower().replace("×", "x").split("x")
        try:
            if not all(p.strip().isascii() for p in parts):
                raise ValueError(value)  # int() reads other scripts' digits; a shape is written in ASCII
            dims = tuple(int(p) for p in parts)
        except ValueError:
            raise GeneratorError(f"{kind}: {name} must look like 4x4x8, got {value!r}") from None
    elif isinstance(value, (list, tuple)) and all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        dims = tuple(value)
    else:
        raise GeneratorError(f"{kind}: {name} must look like 4x4x8, got {value!r}")
    if not 1 <= len(dims) <= 6:
        raise GeneratorError(f"{kind}: {name} must have 1 to 6 dimensions, got {len(dims)}")
    return dims


def dims_text(dims: tuple[int, ...]) -> str:
    return "x".join(str(d) for d in dims)


@dataclass(frozen=True)
class GeneratorSpec:
    """A generator: kind name, one-line description, parameters, and the function that builds."""

    kind: str
    description: str
    params: tuple[Param, ...]
    func: Callable[..., Design] = field(repr=False)

    @property
    def title(self) -> str:
        """The generator's name in the Generate dialog (``kind`` is its id)."""
        return GENERATOR_TITLES.get(self.kind, self.kind)

    def label_of(self, p: Param) -> str:
        """Parameter ``p`` as the Generate dialog labels it for this generator."""
        return param_label(p.name, self.kind)

    def param(self, name: str) -> Param:
        for p in self.params:
            if p.name == name:
                return p
        raise GeneratorError(f"{self.kind}: no parameter {name!r}")

    def defaults(self) -> dict[str, Any]:
        return {p.name: p.default for p in self.params}

    def check(self, params: dict[str, Any]) -> dict[str, Any]:
        """All parameters (defaults filled in), each checked against its type and limits."""
        names = {p.name for p in self.params}
        unknown = sorted(set(params) - names)
        if unknown:
            raise GeneratorError(
                f"{self.kind}: unknown parameter {unknown[0]!r} (known: {', '.join(sorted(names))})"
            )
        return {p.name: p.coerce(self.kind, params.get(p.name, p.default)) for p in self.params}

    def build(self, catalog: Catalog | None = None, **params: Any) -> Design:
        """Check the parameters and build the design (``catalog`` default: the built-in one)."""
        checked = self.check(params)
        with gc_paused(aged=True):
            design = self.func(catalog=catalog, **checked)
        # Every option it was built with, so that the fabric rebuilds as it was (scale, advise, sweeps);
        # figures the generator recorded itself (the oversubscription it reached) stay.
        props = dict(design.properties or {})
        for name, value in checked.items():
            props.setdefault(name, list(value) if isinstance(value, tuple) else value)
        design.properties = props
        return design


# --------------------------------------------------------------------------- common parameters
def cabling_params(long_medium: str = "auto") -> tuple[Param, ...]:
    """Parameters every cabled generator takes: forced cable, copper limit, long-reach medium."""
    return (
        Param("cable", "cable", "", "catalog cable for every network link instead of choosing by reach"),
        Param("copper_max_m", "float", 0.0,
              "longest link that may use copper, in metres (0 = as far as the catalog's copper reaches)",
              minimum=0.0, maximum=100.0),
        Param("long_medium", "choice", long_medium,
              "medium for links copper cannot reach: aoc, optical (transceivers + fibre), or auto "
              "(the catalog's cheapest that reaches)", choices=("auto", "aoc", "optical")),
        Param("racks_per_row", "int", 0,
              "racks in one row of the floor plan, which sets cable lengths (0 = 18, or a square floor when "
              "a cable would not reach across rows of 18)", minimum=0, maximum=10000),
    )


def breakout_params() -> tuple[Param, ...]:
    """The switch port breakout parameter of the generators that build switched fabrics."""
    return (
        Param("breakout", "int", 1,
              "logical ports per switch port: 2 splits each port into two of half the speed (an 800G port as "
              "2 x 400G, cabled with twin-port modules or splitter cables), 4 into four; the switch model must "
              "list it in the catalog (specs.breakout); 1 = the ports as listed", minimum=1, maximum=8),
    )


#: How a server's GPUs are joined by NVLink (the ``nvlink`` parameter; ``switch`` first, the default).
NVLINK_TOPOLOGIES = ("switch", "mesh", "bridge-pairs", "cube-mesh")


def node_params(gpus_per_node: int = 8, gpu: str = "h100-sxm", nic: str = "connectx-7-400g") -> tuple[Param, ...]:
    """Parameters of the servers a fabric connects: GPU, NIC and NVLink fabric models."""
    return (
        Param("gpus_per_node", "int", gpus_per_node,
              "GPUs per server (one NIC per GPU; an NVLink switch fabric when more than one)",
              minimum=1, maximum=72),
        Param("gpu", "model", gpu, "GPU model", model_kind="gpu"),
        Param("nic", "model", nic, "NIC model (one per GPU)", model_kind="nic"),
        Param("nvswitch", "model", "", "NVLink switch fabric model ('' = the HGX board of the GPU)",
              model_kind="nvswitch"),
        Param("nvlink", "choice", "switch",
              "how a server's GPUs are linked: switch (an NVLink switch board, HGX style), mesh (a direct link "
              "between every two GPUs, the GPU's NVLink links shared equally: NV12-style pairs, MI300X-style "
              "meshes), bridge-pairs (NVLink bridges between PCIe cards 1-2, 3-4, ...), cube-mesh (the DGX-1 "
              "hybrid cube-mesh of 8 GPUs)", choices=NVLINK_TOPOLOGIES),
        Param("nodes_per_rack", "int", 4, "servers per rack (sets cable lengths)", minimum=1, maximum=64),
    )


