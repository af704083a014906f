"""The SQLite store: catalog tables built from shipped CSVs, plus the user's own rows."""
