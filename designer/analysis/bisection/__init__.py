"""Bisection bandwidth with certified bounds: the lower bounds (uniform routing, hose) and the
upper bounds from balanced splits refined by minimum cuts. Imports ``fabric`` and ``common``.
"""
