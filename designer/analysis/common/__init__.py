"""Below every room of the analysis: its error, its constants (each with its source), the
findings type and the catalog checks every room words alike, and the twin-port cage rule.
Imports only the model.
"""
