"""Everything Qt: the designer window. Import ``designer.gui.window.app.run_gui`` to start it.

Importing this package applies :func:`designer.gui.qtfix.protect_none` (see there): PySide6
6.12.0 on Python < 3.12 drops one reference to ``None`` each time a ``void`` virtual
implemented in Python (``paint``, ``paintEvent``, ``mousePressEvent``...) returns.
"""

from designer.gui.qtfix import protect_none

protect_none()
