"""The planning report: the document, its sections and tables, and its HTML export."""
