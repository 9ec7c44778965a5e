"""How results are shown: text for terminals and the window, and the JSON documents.

- :mod:`~designer.present.report_text`: an analysis report's summary and ``--explain`` lines;
- :mod:`~designer.present.bom_text`: the bill of materials table;
- :mod:`~designer.present.findings_text`: the lines ``validate`` prints;
- :mod:`~designer.present.report_json`: the report as JSON (``topo-designer-report``);
- :mod:`~designer.present.documents`: findings and the bill of materials as JSON
  (``topo-designer-findings``, ``topo-designer-bom``);
- :mod:`~designer.present.export`: the exports' one analysis and the export report, with
  :mod:`~designer.present.html_report` (the HTML report), :mod:`~designer.present.cabling` (the
  cabling plan) and :mod:`~designer.present.assumptions` (every constant with value, unit, source).

Every quantity reads through :mod:`designer.model.units` (rates, line rates, times, sizes, counts),
one rule for the command line, the window and the analysis' own notes.

It reads the frozen results of :mod:`designer.analysis` and writes files through
:mod:`designer.io`; it imports no Qt, so the command line and the window share it.
"""
