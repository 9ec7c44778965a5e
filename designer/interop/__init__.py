"""A design as other tools' data: a networkx graph and GraphML (docs/export.md).

>>> from designer.generators import GENERATORS
>>> from designer.interop import to_networkx
>>> g = to_networkx(GENERATORS["server"].build())
>>> g.number_of_nodes(), g.number_of_edges()
(17, 16)

No Qt. It reads the model and the analyzer's capacity graph (rates and tiers, so a rate in the
graph is the rate the analyzer uses) and writes files through :mod:`designer.io`.
"""

from designer.interop.graph import GRAPH_FORMAT, GRAPH_VERSION, graphml_bytes, to_networkx, write_graphml

__all__ = ["GRAPH_FORMAT", "GRAPH_VERSION", "graphml_bytes", "to_networkx", "write_graphml"]
