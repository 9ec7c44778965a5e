"""The docked and dialog panels around the canvas: palette, inspector, legend, overview,
analysis dock and the generate dialog. May import the canvas and document rooms; never window."""
