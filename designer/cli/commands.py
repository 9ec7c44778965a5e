"""The commands of ``topo-designer``: name, module and one-line summary, as a static table.

The main parser is built from this table alone, so ``--version``, ``--help`` and a command's
own ``--help`` import no other command's module (nor the analysis, scipy, networkx or Qt behind
them): only the module of the command that runs is imported. Each module has
``add_parser(subparsers)`` and ``run(args) -> int``, and reads its summary from :data:`SUMMARIES`.
This module imports nothing.
"""

from __future__ import annotations

#: ``(command, module under designer.cli, summary)`` in the order of the help. A module may hold
#: several commands (``sweep``, ``sweep-report``, ``sweep-point``); ``import`` is a Python keyword.
COMMANDS: tuple[tuple[str, str, str], ...] = (
    ("gui", "gui", "open the designer window (the default command)"),
    ("validate", "validate", "check a design file and its design rules"),
    ("generate", "generate", "generate a fabric design (fat-tree, leaf-spine, rail-optimized, torus...)"),
    ("analyze", "analyze", "bisection bounds, collective times, bottlenecks"),
    ("bom", "bom", "bill of materials: devices, cables, optics, power, cost"),
    ("workloads", "workloads", "list the training and serving workload presets"),
    ("whatif", "whatif", "fail links, switches or NICs and compare before / after"),
    ("scan", "scan", "N-1 failure scan: every switch (and link) failed once, ranked"),
    ("scale", "scale", "the workload's step at 1/4, 1/2, 1, 2 and 4 times the GPUs; growth headroom"),
    ("advise", "advise", "compare adding GPUs with network upgrades on time to train and cost"),
    ("export", "export", "PNG, JSON report, HTML report, cabling plan, GraphML"),
    ("sweep", "sweep", "design-space sweep on Dask: a grid of generated fabrics, analysed, one row each"),
    ("sweep-report", "sweep", "HTML report of sweep results: the Pareto front, every point"),
    ("sweep-point", "sweep", "rebuild one point of sweep results as a design file"),
    ("import", "import_cmd",
     "import a fabric from ibnetdiscover, GML, GraphML, Slurm, NCCL XML, SimAI, containerlab, ASTRA-sim"),
    ("compare", "compare", "nccl-tests logs of the real cluster against the design's prediction"),
)

#: A command's one-line summary (the main help's list and the module's subparser say the same).
SUMMARIES: dict[str, str] = {name: summary for name, _, summary in COMMANDS}
#: The module under ``designer.cli`` that defines each command.
MODULE_OF: dict[str, str] = {name: module for name, module, _ in COMMANDS}
#: Every command module once, in the order of the help.
MODULES: tuple[str, ...] = tuple(dict.fromkeys(module for _, module, _ in COMMANDS))
