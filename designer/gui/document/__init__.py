"""The open document: the design with its path and undo stack, the undo commands, the
clipboard fragments, thread-safe snapshots and crash recovery. Imports no other GUI room,
only the shared foundation (style, icons, qtfix) and the layers below the GUI."""
