"""Topology Designer: design GPU-cluster fabrics and see how fast they will be."""

__version__ = "0.1.0"
