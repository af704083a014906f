"""Source notes: paraphrases of the sources, with claims that the calculators can check."""
