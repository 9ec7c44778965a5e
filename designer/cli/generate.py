"""``topo-designer generate KIND [params] -o FILE``: build a fabric from the generator registry.

One sub-subcommand per generator kind; its options are the generator's parameters, each
documented with its default and limits, all taken from ``designer.generators.GENERATORS``.
"""

from __future__ import annotations

import argparse

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, decimal_number, guard_outputs, whole_number
from designer.generators import GENERATORS, GeneratorError, GeneratorSpec, Param
from designer.generators.registry import details
from designer.io import save_design
from designer.model import units


def _titled(label: str, text: str) -> str:
    """``text`` after the words the window shows for it, without saying them twice.

    >>> _titled("Scalable units", "scalable units"), _titled("Pods", "number of pods")
    ('Scalable units', 'Pods: number of pods')
    """
    if text.lower().startswith(label.lower()):
        return label + text[len(label):]
    return f"{label}: {text}"


def _option_help(spec: GeneratorSpec, p: Param) -> str:
    """The option's help: its label in the Generate dialog (with the unit), what it means, default, limits."""
    default = p.default if p.default != "" else "''"
    if p.type == "bool":
        default = "on" if p.default else "off"
    if p.type == "dims":
        default = "x".join(str(d) for d in p.default) if isinstance(p.default, tuple) else p.default
    limits = p.limits_text()
    return f"{_titled(spec.label_of(p), p.help)} (default: {default}{'; ' + limits if limits else ''})"


def _add_option(parser: argparse.ArgumentParser, spec: GeneratorSpec, p: Param) -> None:
    kwargs: dict = {"dest": p.name, "default": None, "help": _option_help(spec, p)}
    if p.type == "bool":
        kwargs["action"] = argparse.BooleanOptionalAction
    else:
        kwargs["type"] = {"int": whole_number, "float": decimal_number}.get(p.type, str)
        kwargs["metavar"] = {"int": "N", "float": "X", "dims": "AxBxC", "model": "MODEL", "cable": "CABLE"}.get(
            p.type, "VALUE")
        if p.choices:
            kwargs["choices"] = p.choices
            kwargs.pop("metavar")
    parser.add_argument(p.cli_flag, **kwargs)


def _add_kind(sub: argparse._SubParsersAction, spec: GeneratorSpec) -> None:
    p = sub.add_parser(
        spec.kind,
        help=_titled(spec.title, spec.description),
        description=f"{spec.title} ({spec.kind}): {spec.description}. {details(spec)}",
    )
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="design file to write (.json)")
    for param in spec.params:
        _add_option(p, spec, param)
    p.set_defaults(func=run, kind=spec.kind)


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "generate",
        help=SUMMARIES["generate"],
        description="Generate a fabric design from a parametric reference architecture and write it to a file. "
        "'topo-designer generate KIND --help' lists the parameters of a kind.",
    )
    sub = p.add_subparsers(dest="kind", metavar="KIND")
    for spec in GENERATORS.values():
        _add_kind(sub, spec)
    p.set_defaults(func=run, kind=None)


def run(args: argparse.Namespace) -> int:
    if args.kind is None:
        raise GeneratorError(f"generate: choose a KIND: {', '.join(GENERATORS)}")
    spec = GENERATORS[args.kind]
    guard_outputs(args, {"-o": args.output})
    params = {p.name: getattr(args, p.name) for p in spec.params if getattr(args, p.name, None) is not None}
    design = spec.build(command_catalog(args), **params)
    save_design(design, args.output)
    kinds: dict[str, int] = {}
    for dev in design.iter_devices():
        kinds[dev.kind] = kinds.get(dev.kind, 0) + 1
    print(f"{args.output}: {design.name}: {units.count(design.device_count(), 'device')} "
          f"({units.kind_counts(kinds)}), {units.count(design.link_count(), 'link')}")
    return 0
