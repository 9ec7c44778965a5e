"""Pictures for the exports: the canvas (with its legend) and each analysis panel, as PNG bytes.

PySide6 and pyqtgraph are imported when this module is. Works with no display:
:func:`ensure_application` chooses Qt's ``offscreen`` platform when there is no X11 or Wayland
display and no platform was asked for, then creates the application.

- :func:`canvas_png`: the whole design or a scene rectangle (the window's visible area), at a
  scale (1 = the canvas at 100 %) or a pixel width, on a white or transparent background, the
  legend in a column on the right. Drawn by a scene of its own (the window's selection and
  hover marks stay out of the picture).
- :func:`panel_pngs`: one picture per analysis panel (``designer.gui.panels.plots.PANELS``,
  whatever panels it holds), each fed with the export's analysis and drawn by pyqtgraph's
  ``ImageExporter``; a panel with nothing to plot (the step panel without a workload) is left out.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyqtgraph  # noqa: F401  (an ImportError here means pictures cannot be drawn on this machine)
import PySide6.QtWidgets  # noqa: F401

from designer.model import DesignError

if TYPE_CHECKING:
    from PySide6.QtCore import QRectF
    from PySide6.QtWidgets import QApplication

    from designer.model import Design
    from designer.model.catalog import Catalog
    from designer.present.export import ExportData, Picture

#: Largest picture side and area, pixels (a 16k x 16k RGBA image is 1 GiB).
MAX_SIDE_PX = 16_384
MAX_PIXELS = 120_000_000
#: Width of the legend column, pixels.
LEGEND_WIDTH_PX = 240
#: Default width of a canvas picture when neither a width nor a scale is given, pixels.
DEFAULT_WIDTH_PX = 2400
#: Size of a panel picture, pixels.
PANEL_SIZE_PX = (900, 520)


class PictureError(DesignError):
    """A picture that cannot be drawn as asked (too large, nothing to draw)."""


def choose_platform() -> None:
    """Use Qt's ``offscreen`` platform when no display is reachable and none was asked for."""
    if os.environ.get("QT_QPA_PLATFORM"):
        return
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ["QT_QPA_PLATFORM"] = "offscreen"


def ensure_application(quiet: bool = False) -> QApplication:
    """The running QApplication, or a new one (offscreen when there is no display).

    ``quiet``: drop Qt's debug messages and the offscreen platform's notes about window size
    hints it does not support (the command line's standard error stays for real problems).
    """
    choose_platform()
    import designer.gui  # noqa: F401  (applies the PySide6 None fix before any paint)
    from designer.gui.window.app import create_application

    if quiet:
        from PySide6.QtCore import QtMsgType, qInstallMessageHandler

        def handler(kind: QtMsgType, _context: object, message: str) -> None:
            if kind == QtMsgType.QtDebugMsg or "propagateSizeHints" in message:
                return
            print(f"qt: {message}", file=sys.stderr)

        qInstallMessageHandler(handler)
    return create_application()


def _export_scene_class() -> type:
    from PySide6.QtGui import QColor, QPainter

    from designer.gui.canvas.scene import DesignScene

    class ExportScene(DesignScene):
        """The canvas scene painting a plain (white or transparent) ground, no grid."""

        ground: QColor | None = QColor("white")

        def drawBackground(self, painter: QPainter, rect: QRectF) -> None:  # noqa: N802 (Qt override)
            if self.ground is not None:
                painter.fillRect(rect, self.ground)
            if self.sketched:
                self.sketch().paint(painter)

    return ExportScene


def _png_bytes(image: Any) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buf = QBuffer(data)
    buf.open(QIODevice.OpenModeFlag.WriteOnly)
    if not image.save(buf, "PNG"):
        raise PictureError("the picture could not be encoded as PNG")
    buf.close()
    return bytes(data.data())


def canvas_png(design: Design, catalog: Catalog | None = None, *, width: int | None = None,
               scale: float | None = None, transparent: bool = False, legend: bool = True,
               area: QRectF | None = None, collapse: bool = True,
               utilisation: tuple[Sequence[str], Sequence[float]] | None = None,
               halo: Sequence[str] = ()) -> Picture:
    """The canvas as a PNG :class:`~designer.present.export.Picture`.

    ``area`` is a scene rectangle (the window's visible area); None draws the whole design.
    ``width`` is the picture's width in pixels (legend column included); else ``scale`` is
    pixels per canvas unit (1 = 100 %); neither: :data:`DEFAULT_WIDTH_PX`. ``collapse`` collapses
    groups of a large design that has no collapsed group, as the window does when it opens one
    (view state of the design, not an edit). ``utilisation`` (link ids, fractions) colours the links
    by their load as the window's heat-map does, the legend showing its colour bar, ``halo`` ringing
    the bottlenecks; None colours them by medium.
    """
    from PySide6.QtCore import QPointF, QRectF, Qt
    from PySide6.QtGui import QColor, QImage, QPainter

    from designer.gui.document.document import auto_collapse
    from designer.gui.panels.legend import Legend
    from designer.gui.style import LOD_SKETCH
    from designer.model.catalog import builtin_catalog
    from designer.present.export import Picture

    ensure_application()
    if width is not None and width < 16:
        raise PictureError(f"picture width {width} px: at least 16 px")
    if scale is not None and not (scale > 0):
        raise PictureError(f"picture scale {scale}: must be above 0")
    if collapse:
        auto_collapse(design)
    scene = _export_scene_class()(catalog if catalog is not None else builtin_catalog())
    scene.ground = None if transparent else QColor("white")
    scene.show_grid = False
    try:
        scene.set_design(design)
        if utilisation is not None:
            from designer.gui import style
            from designer.gui.canvas.overlay import BOTTLENECK

            scene.marks.set_utilisation(list(utilisation[0]), np.asarray(utilisation[1], dtype=float))
            scene.marks.set_halo(BOTTLENECK, list(halo), style.BOTTLENECK_HALO)
            scene.restyle_links()
        scene.flush()
        source = QRectF(area) if area is not None else scene.itemsBoundingRect()
        if source.isEmpty():
            source = QRectF(-400, -300, 800, 600)
        if area is None:
            margin = max(source.width(), source.height()) * 0.02 + 20
            source = source.adjusted(-margin, -margin, margin, margin)
        legend_w = LEGEND_WIDTH_PX if legend else 0
        if width is not None:
            total_w = int(width)
            if legend and total_w < 3 * LEGEND_WIDTH_PX:
                legend_w = 0  # too narrow for a legend column: the picture is the canvas alone
            px_per_unit = (total_w - legend_w) / source.width()
        else:
            px_per_unit = scale if scale is not None else (DEFAULT_WIDTH_PX - legend_w) / source.width()
            total_w = int(round(source.width() * px_per_unit)) + legend_w
        canvas_h = int(round(source.height() * px_per_unit))
        leg = None
        if legend_w:
            leg = Legend()
            leg.set_utilisation_scale(utilisation is not None)
            leg.resize(LEGEND_WIDTH_PX - 10, leg.sizeHint().height())
        total_h = max(canvas_h, (leg.height() + 20) if leg is not None else 0, 1)
        if total_w > MAX_SIDE_PX or total_h > MAX_SIDE_PX or total_w * total_h > MAX_PIXELS:
            raise PictureError(f"a {total_w:,} x {total_h:,} px picture is too large (at most {MAX_SIDE_PX:,} px "
                               f"a side and {MAX_PIXELS // 1_000_000} megapixels): give a smaller width or scale")
        scene.set_sketched(px_per_unit < LOD_SKETCH)
        image = QImage(total_w, total_h, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(QColor(0, 0, 0, 0) if transparent else QColor("white"))
        painter = QPainter(image)
        painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing
                               | QPainter.RenderHint.SmoothPixmapTransform)
        target = QRectF(0, (total_h - canvas_h) / 2, total_w - legend_w, canvas_h)
        scene.render(painter, target, source, Qt.AspectRatioMode.IgnoreAspectRatio)
        if leg is not None:
            x = total_w - legend_w + 5
            painter.fillRect(QRectF(x, 10, leg.width(), leg.height()), QColor(255, 255, 255, 235))
            painter.end()
            # QWidget.render opens its own painter on the image
            leg.render(image, QPointF(x, 10).toPoint())
        else:
            painter.end()
        return Picture("canvas", _png_bytes(image), total_w, total_h)
    finally:
        scene.detach()
        scene.clear()


def _live_result(data: ExportData) -> Any:
    """A ``LiveResult`` of the export's analysis, filled field by field (panels may add fields)."""
    from designer.gui.panels.live_runner import LiveResult, Traffic

    rep = data.report
    known: dict[str, Any] = {
        "report": rep, "baseline": None, "seconds": 0.0, "built_routes": False,
        "traffic": Traffic(collective=rep.collective, size=rep.link_use_bytes or Traffic().size,
                           workload=getattr(data, "workload", None)),
        "step": data.step, "workload": data.step, "serving": getattr(data, "serving", None),
    }
    kwargs = {}
    for f in dataclasses.fields(LiveResult):
        if f.name in known:
            kwargs[f.name] = known[f.name]
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            kwargs[f.name] = None
    return LiveResult(**kwargs)


def titled_png(png: bytes, title: str, subtitle: str) -> tuple[bytes, int, int]:
    """``png`` under a header: ``title`` in bold, then ``subtitle`` (the design's name and the panel's
    headline figure), wrapped to the picture's width; returns the PNG and its size."""
    from PySide6.QtCore import QRectF, Qt
    from PySide6.QtGui import QColor, QFont, QFontMetrics, QImage, QPainter

    plot = QImage.fromData(png, "PNG")
    width = plot.width()
    bold, plain = QFont(), QFont()
    bold.setPixelSize(20)
    bold.setBold(True)
    plain.setPixelSize(14)
    margin = 14
    flags = int(Qt.TextFlag.TextWordWrap)
    sub_rect = QFontMetrics(plain).boundingRect(0, 0, width - 2 * margin, 2000, flags, subtitle)
    head = margin + QFontMetrics(bold).height() + 4 + sub_rect.height() + margin // 2
    image = QImage(width, head + plot.height(), QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(QColor("white"))
    painter = QPainter(image)
    painter.setRenderHints(QPainter.RenderHint.Antialiasing | QPainter.RenderHint.TextAntialiasing)
    painter.setPen(QColor("#1d232b"))
    painter.setFont(bold)
    painter.drawText(QRectF(margin, margin, width - 2 * margin, QFontMetrics(bold).height()), 0, title)
    painter.setPen(QColor("#3A4350"))
    painter.setFont(plain)
    painter.drawText(QRectF(margin, margin + QFontMetrics(bold).height() + 4, width - 2 * margin,
                            sub_rect.height()), flags, subtitle)
    painter.drawImage(0, head, plot)
    painter.end()
    return _png_bytes(image), image.width(), image.height()


def panel_pngs(data: ExportData, size: tuple[int, int] = PANEL_SIZE_PX) -> list[Picture]:
    """One PNG per analysis panel with something to plot, in the panels' order."""
    from PySide6.QtCore import Qt

    from designer.gui.panels.plots import PANELS
    from designer.present.export import Picture

    app = ensure_application()
    result = _live_result(data)
    out: list[Picture] = []
    with tempfile.TemporaryDirectory(prefix="topo-panels-") as tmp:
        for key, (title, factory) in PANELS.items():
            panel = factory()
            try:
                panel.setAttribute(Qt.WidgetAttribute.WA_DontShowOnScreen, True)
                table = getattr(panel, "table", None)
                if table is not None:  # a picture is the plot: its table is in the reports
                    table.hide()
                    panel.plot.setMaximumHeight(size[1])
                panel.resize(*size)
                panel.show()
                panel.show_result(result)
                app.processEvents()
                if not panel.has_data():
                    continue
                path = Path(tmp) / f"{key}.png"
                panel.export_png(path, width=size[0])
                subtitle = " \u2014 ".join(t for t in (data.design.name, panel.headline()) if t)
                png, w, h = titled_png(path.read_bytes(), title, subtitle)
                out.append(Picture(title, png, w, h, key))
            finally:
                panel.close()
                panel.deleteLater()
    app.processEvents()
    return out


def _png_size(png: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk."""
    if len(png) < 24 or png[:8] != b"\x89PNG\r\n\x1a\n":
        return 0, 0
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


__all__ = ["DEFAULT_WIDTH_PX", "PictureError", "canvas_png", "choose_platform", "ensure_application",
           "panel_pngs"]
