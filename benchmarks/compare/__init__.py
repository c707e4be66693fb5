"""Side-by-side scripts: each runs several methods on the same instances in one run and prints ratios."""
