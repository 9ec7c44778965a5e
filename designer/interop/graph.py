"""The design as other tools' data: networkx and GraphML, written and read in :mod:`designer.io.graphml`.

Kept so ``designer.interop.graph`` names stay where they were; the format itself (both directions)
is defined once, in :mod:`designer.io.graphml`.
"""

from designer.io.graphml import (
    GRAPH_FORMAT,
    GRAPH_VERSION,
    design_from_graph,
    device_places,
    graphml_bytes,
    to_networkx,
    write_graphml,
)

__all__ = ["GRAPH_FORMAT", "GRAPH_VERSION", "design_from_graph", "device_places", "graphml_bytes", "to_networkx",
           "write_graphml"]
