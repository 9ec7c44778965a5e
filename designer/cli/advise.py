"""``topo-designer advise FILE --workload W``: more GPUs or a better network, which buys more?"""

from __future__ import annotations

import argparse

from designer.cli.commands import SUMMARIES
from designer.cli.common import command_catalog, command_design, decimal_number, echo, guard_outputs, write_json


def add_parser(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "advise",
        help=SUMMARIES["advise"],
        description="Rebuild the design's fabric family with more GPUs and with network upgrades (faster NICs and "
        "switches, no oversubscription) and compare each with the design as it is: time to train the workload's "
        "tokens and bill of materials (indicative USD from the catalog); say which buys the most days per USD.",
    )
    p.add_argument("file", help="design file (.json), or - to read standard input")
    p.add_argument("--workload", metavar="NAME|FILE", required=True, help="a preset or workload file")
    p.add_argument("--more-gpus", type=decimal_number, default=25.0, metavar="PCT",
                   help="the GPU option adds this many percent of GPUs (default 25)")
    p.add_argument("--json", metavar="PATH", help="write the comparison as JSON to PATH ('-' for stdout)")
    p.set_defaults(func=run)


def _network_speed(comp) -> float:
    return max((g.speed_gbps for g in comp.ports if g.kind == "network"), default=0.0)


def options(design, catalog) -> list[tuple[str, object]]:
    """(label, design) of each upgrade the design's family allows among ``catalog``'s parts."""
    from designer.cli.fabric_family import family_params, rebuild
    from designer.generators import GENERATORS

    kind, params = family_params(design)
    spec = GENERATORS[kind]
    names = {p.name for p in spec.params}
    out = []
    if "nic" in names:
        nic_id = params.get("nic", spec.param("nic").default)
        nic = catalog.components.get(nic_id)
        current = _network_speed(nic) if nic else 0.0
        faster = sorted((c for c in catalog.by_kind("nic") if _network_speed(c) > current),
                        key=lambda c: (_network_speed(c), c.id))
        if faster:
            new = faster[0]
            change = {"nic": new.id}
            label = f"{new.id} NICs"
            if "switch" in names:
                sw_id = params.get("switch", spec.param("switch").default)
                sw = catalog.components.get(sw_id)
                if sw is None or _network_speed(sw) < _network_speed(new):
                    # the same kind of fabric: an InfiniBand design stays InfiniBand (its NICs, SHARP, UFM)
                    protocol = sw.specs.get("protocol") if sw is not None else None
                    sws = sorted((c for c in catalog.by_kind("switch") if _network_speed(c) >= _network_speed(new)
                                  and (protocol is None or c.specs.get("protocol") == protocol)),
                                 key=lambda c: (c.price_usd, c.id))
                    if sws:
                        change.update(switch=sws[0].id)
                        if "spine_switch" in names:
                            change["spine_switch"] = ""
                        if "core_switch" in names:
                            change["core_switch"] = ""
                        label += f" and {sws[0].id} switches"
            out.append((label, rebuild(design, 1.0, catalog, **change)))
    if "switch" in names:
        sw = catalog.components.get(params.get("switch", spec.param("switch").default))
        if sw is not None and sw.specs.get("protocol") == "infiniband" and not sw.specs.get("sharp"):
            sharp = sorted((c for c in catalog.by_kind("switch") if c.specs.get("protocol") == "infiniband"
                            and c.specs.get("sharp") and _network_speed(c) >= _network_speed(sw)),
                           key=lambda c: (c.price_usd, c.id))
            if sharp:
                change = {"switch": sharp[0].id}
                for key in ("spine_switch", "core_switch"):
                    if key in names:
                        change[key] = ""
                out.append((f"SHARP-capable {sharp[0].id} switches", rebuild(design, 1.0, catalog, **change)))
    over = float(params.get("oversubscription", 1.0) or 1.0)
    if "oversubscription" in names and over > 1.0:
        out.append((f"no oversubscription (was {over:g}:1)", rebuild(design, 1.0, catalog, oversubscription=1.0)))
    return out


def run(args: argparse.Namespace) -> int:
    guard_outputs(args, {"--json": args.json}, {"the design file": args.file, "the workload file": args.workload})
    from designer.analysis.common.errors import AnalysisError
    from designer.analysis.training.scaling import advise
    from designer.cli.fabric_family import rebuild
    from designer.cli.workloads import workload_arg
    from designer.model.units import figures
    from designer.present.scaling_text import advice_lines, advice_to_dict

    if not 0 < args.more_gpus <= 1000:
        raise AnalysisError(f"--more-gpus {args.more_gpus:g}: a percentage above 0 and at most 1000")
    workload = workload_arg(args.workload)
    design = command_design(args.file)
    catalog = command_catalog(args)
    base = rebuild(design, 1.0, catalog)
    more = rebuild(design, 1 + args.more_gpus / 100.0, catalog)
    n0 = sum(1 for d in base.devices if d.kind == "gpu")
    n1 = sum(1 for d in more.devices if d.kind == "gpu")
    opts = [(f"+{figures((n1 - n0) / max(n0, 1) * 100)}% GPUs ({n1 - n0:,} more)", more)]
    opts += options(design, catalog)
    # The base is rebuilt from the same parameters as the options, so that only the change differs.
    advice = advise(("as it is (rebuilt)", base), opts, workload, catalog)
    if args.json:
        write_json(advice_to_dict(advice), args.json)
        if args.json == "-":
            return 0
    echo("\n".join(advice_lines(advice)))
    return 0
