"""Calculator `interconnect`: links, collectives, transfers and unit conversions (pint)."""
