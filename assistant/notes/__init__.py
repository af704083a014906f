"""What the notes claim, and whether the calculators agree: the notes check, disputed claims,
concept answers quoted from notes."""
