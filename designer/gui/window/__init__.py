"""The application and its main window: menus and actions, start-up, and the wiring of
document, canvas and panels. May import every other GUI room; nothing imports it except
the command line's ``gui`` command and tests."""
