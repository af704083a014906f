"""Calculator `pricing`: offers from the store and what renting them costs."""
