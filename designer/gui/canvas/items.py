"""Graphics items: dumb shapes that hold an id and draw themselves.

The scene (:mod:`designer.gui.canvas.scene`) owns the id -> item maps, positions the items and tells
them what to show. Items never read or change the model and handle no mouse input: the view's
interaction objects do that. Painting adapts to the level of detail, so a zoomed-out view of
thousands of devices draws plain boxes without text.
"""

from __future__ import annotations

from PySide6.QtCore import QLineF, QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QFontMetricsF, QPainter, QPainterPath, QPainterPathStroker, QPen
from PySide6.QtWidgets import (
    QGraphicsItem,
    QGraphicsLineItem,
    QGraphicsRectItem,
    QStyle,
    QStyleOptionGraphicsItem,
    QWidget,
)

from designer.gui import style
from designer.gui.canvas.shown import BundleKey
from designer.gui.style import (
    GROUP_HEADER,
    KIND_STYLES,
    LOD_BOX_ONLY,
    LOD_LABELS,
    LOD_PORT_LABELS,
    LOD_PORTS,
)
from designer.model.geometry import PORT_PITCH, port_grid

_FONTS: dict[str, QFont] = {}
_HIT_PEN = QPen(QColor(0, 0, 0, 0), 8.0)
_SELECTABLE = QGraphicsItem.GraphicsItemFlag.ItemIsSelectable


def _font(name: str) -> QFont:
    f = _FONTS.get(name)
    if f is None:
        f = {
            "label": style.label_font(9.0, bold=True),
            "sub": style.label_font(7.5),
            "port": style.label_font(4.0),
            "group": style.label_font(9.0, bold=True),
            "box": style.label_font(10.0, bold=True),
            "count": style.label_font(7.5, bold=True),
        }[name]
        _FONTS[name] = f
    return f


def _lod(option: QStyleOptionGraphicsItem, painter: QPainter) -> float:
    return option.levelOfDetailFromTransform(painter.worldTransform())


# Item types, for fast ``item.type()`` dispatch in the scene and view.
DEVICE_TYPE = QGraphicsItem.UserType + 1
BUNDLE_TYPE = QGraphicsItem.UserType + 2
FRAME_TYPE = QGraphicsItem.UserType + 3
BOX_TYPE = QGraphicsItem.UserType + 4


class DeviceItem(QGraphicsRectItem):
    """A device: a box with its kind's colours, a label, and a strip of ports along the bottom.

    ``pos()`` is the device centre. Ports are small squares, filled when they hold a link.
    """

    def __init__(self, device_id: str, kind: str, width: float, height: float) -> None:
        super().__init__()
        self.device_id = device_id
        self.kind = kind
        self._style = KIND_STYLES.get(kind, KIND_STYLES["storage"])
        self._rect = QRectF(-width / 2, -height / 2, width, height)
        # The C++ rect is only the bounds (selection outline included): Qt computes them without
        # calling into Python, which matters with thousands of items.
        self.setRect(self._rect.adjusted(-3, -3, 3, 3))
        self.setPen(Qt.PenStyle.NoPen)
        # Measured on a 2,048-GPU design: a device-coordinate pixmap cache cuts a 100 % repaint
        # from ~50 to ~35 ms and a 100-device drag from ~75 to ~42 ms (item-coordinate caching
        # is faster still but blurs when zoomed; no index is slower than the BSP tree).
        self.setCacheMode(QGraphicsItem.CacheMode.DeviceCoordinateCache)
        self._label = device_id
        self._sub = ""
        self._raw_text = (device_id, "")
        self._elided = True
        self._ports: list[tuple[str, str]] = []  # (port id, port kind)
        self._used: set[str] = set()
        self._port_rects: list[QRectF] = []
        self._port_pitch = PORT_PITCH
        self._ports_laid_out = True
        self.flagged = ""  # level of the device's worst design-rule finding, "" for none
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(10)

    # -- set by the scene
    def set_text(self, label: str, sub: str) -> None:
        self._raw_text = (label, sub)
        self._elided = False
        self.update()

    def _elide(self) -> None:
        """Fit the texts to the box (done at first paint: most items of a big design never show text)."""
        label, sub = self._raw_text
        width = self._rect.width() - 14
        self._label = QFontMetricsF(_font("label")).elidedText(label, Qt.TextElideMode.ElideMiddle, width)
        self._sub = QFontMetricsF(_font("sub")).elidedText(sub, Qt.TextElideMode.ElideRight, width)
        self._elided = True

    def set_ports(self, ports: list[tuple[str, str]], used: set[str]) -> None:
        """The device's ports (id, kind) and which hold a link; their squares are laid out when needed."""
        self._ports = ports
        self._used = used
        self._port_rects = []
        self._port_pitch = port_grid(len(ports), self._rect.width())[2]
        self._ports_laid_out = False
        self.update()

    def _layout_ports(self) -> None:
        ports = self._ports
        rows, cols, pitch = port_grid(len(ports), self._rect.width())
        size = pitch * 0.72
        x0 = -(cols * pitch) / 2 + (pitch - size) / 2
        top = self._rect.bottom() - 4 - rows * pitch + (pitch - size) / 2
        rects = []
        for i in range(min(len(ports), 256)):
            r, c = divmod(i, cols)
            rects.append(QRectF(x0 + c * pitch, top + r * pitch, size, size))
        self._port_rects = rects
        self._port_pitch = pitch
        self._ports_laid_out = True

    def set_port_used(self, port_id: str, used: bool) -> None:
        if used:
            self._used.add(port_id)
        else:
            self._used.discard(port_id)
        self.update()

    def set_flagged(self, flagged: str) -> None:
        if flagged != self.flagged:
            self.flagged = flagged
            self.update()

    # -- geometry queries (used by interactions)
    def rect(self) -> QRectF:
        return self._rect

    def port_at(self, local: QPointF) -> str | None:
        """The port under a point in item coordinates (with a little slack), or None."""
        if not self._ports_laid_out:
            self._layout_ports()
        for (pid, _), r in zip(self._ports, self._port_rects, strict=False):
            slack = self._port_pitch * 0.14
            if r.adjusted(-slack, -slack, slack, slack).contains(local):
                return pid
        return None

    def ports_visible(self, scale: float) -> bool:
        """Whether the port squares are drawn (and can be grabbed) at view scale ``scale``."""
        return bool(self._ports) and scale * self._port_pitch >= LOD_PORTS * PORT_PITCH

    def port_centre(self, port_id: str) -> QPointF:
        if not self._ports_laid_out:
            self._layout_ports()
        for (pid, _), r in zip(self._ports, self._port_rects, strict=False):
            if pid == port_id:
                return r.center()
        return QPointF(0, 0)

    # -- QGraphicsItem
    def type(self) -> int:
        return DEVICE_TYPE

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        lod = _lod(option, painter)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        st = self._style
        r = self._rect
        if lod < LOD_BOX_ONLY:
            painter.fillRect(r, style.SELECTION if selected else (style.flag_colour(self.flagged) if self.flagged
                                                                  else st.accent))
            return
        border = QPen(style.SELECTION if selected else (style.flag_colour(self.flagged) if self.flagged else st.accent))
        border.setWidthF(2.5 if (selected or self.flagged) else 1.2)
        border.setCosmetic(True)
        painter.setPen(border)
        painter.setBrush(st.fill)
        painter.drawRoundedRect(r, 5, 5)
        painter.fillRect(QRectF(r.left() + 1, r.top() + 4, 4, r.height() - 8), st.accent)
        if lod < LOD_LABELS:
            return
        if not self._elided:
            self._elide()
        painter.setPen(st.text)
        painter.setFont(_font("label"))
        painter.drawText(QRectF(r.left() + 9, r.top() + 3, r.width() - 12, 14), Qt.AlignmentFlag.AlignLeft, self._label)
        if self._sub:
            painter.setFont(_font("sub"))
            painter.drawText(
                QRectF(r.left() + 9, r.top() + 16, r.width() - 12, 12), Qt.AlignmentFlag.AlignLeft, self._sub
            )
        if lod * self._port_pitch < LOD_PORTS * PORT_PITCH or not self._ports:
            return
        if not self._ports_laid_out:
            self._layout_ports()
        port_pen = QPen(style.PORT_BORDER, 0.8)
        port_pen.setCosmetic(True)
        painter.setPen(port_pen)
        used = self._used
        free_brush = QBrush(style.PORT_FREE)
        for (pid, kind), pr in zip(self._ports, self._port_rects, strict=False):
            painter.setBrush(style.PORT_USED.get(kind, st.accent) if pid in used else free_brush)
            painter.drawRect(pr)
        if lod * self._port_pitch >= LOD_PORT_LABELS * PORT_PITCH:
            font = QFont(_font("port"))
            font.setPointSizeF(max(0.5, self._port_pitch * 0.26))
            painter.setFont(font)
            painter.setPen(st.text)
            for (pid, _), pr in zip(self._ports, self._port_rects, strict=False):
                painter.drawText(pr.adjusted(-2, 0, 2, 0), Qt.AlignmentFlag.AlignCenter, pid)


class BundleItem(QGraphicsLineItem):
    """One link, or several parallel links between the same two shown objects, as one line.

    The pen encodes the medium (colour and dash) and the total bandwidth (width); a count badge
    shows how many links the bundle holds.
    """

    # Until set_line and set_look: class defaults, never changed in place (each set replaces them),
    # so that the 69,632 lines of an expanded 16k-GPU design are built without five objects each.
    _p1 = _p2 = QPointF()
    _control: QPointF | None = None
    _curve: QPainterPath | None = None
    _pen = QPen()
    _count = 1
    _badge = ""
    _halo: QColor | None = None  # analysis mark (bottleneck, cut) drawn under the line

    def __init__(self, key: BundleKey) -> None:
        super().__init__()
        self.key = key
        # The C++ pen only sizes the bounds and the hit area (8 units wide); painting uses _pen.
        self.setPen(_HIT_PEN)
        self.setFlags(_SELECTABLE)  # z 0: above frames, below devices

    def set_line(self, p1: QPointF, p2: QPointF, control: QPointF | None = None) -> None:
        """A straight line from ``p1`` to ``p2``, or with ``control`` a quadratic arc through it
        (links along a row of devices that skip over the devices between them)."""
        if p1 == self._p1 and p2 == self._p2 and control == self._control:
            return
        self.prepareGeometryChange()
        self._p1, self._p2, self._control = p1, p2, control
        self._curve = None
        if control is not None:
            self._curve = QPainterPath(p1)
            self._curve.quadTo(control, p2)
        self.setLine(QLineF(p1, p2))

    def boundingRect(self) -> QRectF:
        if self._curve is None:
            return super().boundingRect()
        return self._curve.boundingRect().adjusted(-6, -6, 6, 6)

    def shape(self) -> QPainterPath:
        if self._curve is None:
            return super().shape()
        stroker = QPainterPathStroker()
        stroker.setWidth(_HIT_PEN.widthF())
        return stroker.createStroke(self._curve)

    def _draw(self, painter: QPainter) -> None:
        if self._curve is None:
            painter.drawLine(self._p1, self._p2)
        else:
            painter.setBrush(Qt.BrushStyle.NoBrush)
            painter.drawPath(self._curve)

    def set_look(self, pen: QPen, count: int, halo: QColor | None = None) -> None:
        self._pen = pen
        self._halo = halo
        self._count = count
        self._badge = f"\u00d7{count}" if count > 1 else ""
        self.update()

    def ends(self) -> tuple[QPointF, QPointF]:
        return self._p1, self._p2

    def draw_pen(self) -> QPen:
        return self._pen

    def halo(self) -> QColor | None:
        return self._halo

    def type(self) -> int:
        return BUNDLE_TYPE

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        if self._halo is not None:
            mark = QPen(self._halo, self._pen.widthF() + 10)
            mark.setCosmetic(True)
            painter.setPen(mark)
            self._draw(painter)
        if option.state & QStyle.StateFlag.State_Selected:
            halo = QPen(QColor(30, 111, 217, 110), self._pen.widthF() + 6)
            halo.setCosmetic(True)
            painter.setPen(halo)
            self._draw(painter)
        painter.setPen(self._pen)
        self._draw(painter)
        if self._badge and _lod(option, painter) >= LOD_LABELS:
            mid = (self._p1 + self._p2) / 2 if self._curve is None else self._curve.pointAtPercent(0.5)
            r = QRectF(mid.x() - 11, mid.y() - 6.5, 22, 13)
            painter.setPen(QPen(self._pen.color(), 1))
            painter.setBrush(QColor("#FFFFFF"))
            painter.drawRoundedRect(r, 6, 6)
            painter.setFont(_font("count"))
            painter.drawText(r, Qt.AlignmentFlag.AlignCenter, self._badge)


class GroupFrameItem(QGraphicsItem):
    """An expanded group: a tinted frame around its members with a title bar.

    Only the title bar is hit-testable, so clicks and rubber bands inside the frame reach the
    devices and the background. The scene draws the titles on top of links, at a constant
    screen size.
    """

    def __init__(self, group_id: str, kind: str) -> None:
        super().__init__()
        self.group_id = group_id
        self.kind = kind
        self._rect = QRectF()
        self._title = group_id
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(-10)

    def set_rect(self, rect: QRectF) -> None:
        if rect != self._rect:
            self.prepareGeometryChange()
            self._rect = QRectF(rect)

    def set_title(self, title: str) -> None:
        self._title = title
        self.update()

    def rect(self) -> QRectF:
        return self._rect

    def header_rect(self) -> QRectF:
        r = self._rect
        return QRectF(r.left(), r.top(), r.width(), GROUP_HEADER)

    def type(self) -> int:
        return FRAME_TYPE

    def boundingRect(self) -> QRectF:
        return self._rect.adjusted(-2, -2, 2, 2)

    def shape(self) -> QPainterPath:
        path = QPainterPath()
        path.addRect(self.header_rect())
        return path

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        pen = QPen(style.SELECTION if selected else style.GROUP_BORDER, 2.0 if selected else 1.0)
        pen.setCosmetic(True)
        if self.kind == "server":
            pen.setStyle(Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.setBrush(style.GROUP_FILLS.get(self.kind, style.GROUP_FILLS["custom"]))
        painter.drawRoundedRect(self._rect, 8, 8)
        # The title is drawn by the scene above everything (DesignScene.drawForeground).

    def title(self) -> str:
        return self._title


class CollapsedGroupItem(QGraphicsRectItem):
    """A collapsed group drawn as one box over the area its members occupy; ``pos()`` is its centre.

    The scene sizes the box (:meth:`set_size`) and draws its title and contents summary on top,
    at a constant screen size (DesignScene.drawForeground).
    """

    def __init__(self, group_id: str, kind: str) -> None:
        super().__init__()
        self.group_id = group_id
        self.kind = kind
        self._title = group_id
        self._summary = ""
        self.flagged = ""  # level of the worst finding among the devices it hides
        self.set_size(*style.COLLAPSED_SIZES.get(kind, style.COLLAPSED_SIZES["custom"]))
        self.setPen(Qt.PenStyle.NoPen)
        self.setFlag(QGraphicsItem.GraphicsItemFlag.ItemIsSelectable, True)
        self.setZValue(8)

    def set_size(self, width: float, height: float) -> None:
        self._rect = QRectF(-width / 2, -height / 2, width, height)
        self.setRect(self._rect.adjusted(-3, -3, 5, 5))

    def set_text(self, title: str, summary: str) -> None:
        self._title = title
        self._summary = summary
        self.update()

    def texts(self) -> tuple[str, str]:
        return self._title, self._summary

    def set_flagged(self, flagged: str) -> None:
        if flagged != self.flagged:
            self.flagged = flagged
            self.update()

    def rect(self) -> QRectF:
        return self._rect

    def type(self) -> int:
        return BOX_TYPE

    def paint(self, painter: QPainter, option: QStyleOptionGraphicsItem, widget: QWidget | None = None) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        r = self._rect
        fill = box_fill(self.kind)
        edge = (style.SELECTION if selected
                else style.flag_colour(self.flagged) if self.flagged else style.GROUP_BORDER)
        if _lod(option, painter) < LOD_BOX_ONLY:
            painter.fillRect(r, fill)
            if selected or self.flagged:
                pen = QPen(edge, 2.5)
                pen.setCosmetic(True)
                painter.setPen(pen)
                painter.setBrush(Qt.BrushStyle.NoBrush)
                painter.drawRect(r)
            return
        # a second box behind suggests "many things inside"
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(QColor("#D5DBE2"))
        painter.drawRoundedRect(r.translated(4, 4), 7, 7)
        pen = QPen(edge, 2.5 if (selected or self.flagged) else 1.2)
        pen.setCosmetic(True)
        painter.setPen(pen)
        painter.setBrush(fill)
        painter.drawRoundedRect(r, 7, 7)


_BOX_FILLS: dict[str, QColor] = {}


def box_fill(kind: str) -> QColor:
    """The opaque colour of a collapsed group box of ``kind``: its kind's tint over white, the same
    at every zoom (the box, the zoomed-out sketch and the overview all use it)."""
    colour = _BOX_FILLS.get(kind)
    if colour is None:
        tint = style.GROUP_FILLS.get(kind, style.GROUP_FILLS["custom"])
        a = min(255, tint.alpha() * 5) / 255
        colour = _BOX_FILLS[kind] = QColor(*(round(255 * (1 - a) + c * a) for c in (tint.red(), tint.green(),
                                                                                      tint.blue())))
    return colour


def set_sketched(item: QGraphicsItem, sketched: bool) -> None:
    """While the scene draws its sketch, items keep their shape (selectable) but do not paint."""
    item.setFlag(QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, sketched)
