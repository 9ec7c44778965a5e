"""The canvas: the scene that shows a design, its items, the view, pointer interactions,
link drawing, design-rule marks and the editor that turns gestures into undo commands.
May import the document room and the shared foundation; never panels or window."""
