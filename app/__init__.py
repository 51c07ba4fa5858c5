"""The MemoryOS desktop program (PySide6): windows, dialogs and workers over the engine facade."""
