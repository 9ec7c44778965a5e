"""Collectives on the fabric: NCCL's algorithms embedded as flows (rings, trees, NVLS, SHARP,
all-to-all), their time models, the direct-link algorithms of tori, meshes and hypercubes,
and hashed ECMP. Imports ``fabric`` and ``common``.
"""
