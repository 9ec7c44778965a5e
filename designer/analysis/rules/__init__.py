"""Design rules: per device and per link, the whole fabric's shape and connectivity, and what a
fabric's own discovery recorded. Imports ``fabric`` and ``common``.
"""
