"""The bill of materials: devices by model, cables by medium and length, optics, power, cost.
Imports ``common``.
"""
