"""The fabric as the analysis sees it: the capacity graph, routing (NVLink domains, ECMP and its
symmetry shortcuts), the analysis context, link load and fairness, link tiers, GPU islands.
Imports only ``common`` and the model.
"""
