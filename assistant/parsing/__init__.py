"""Reading a question: names, numbers, units, counts, the intent, and what must be asked back."""
