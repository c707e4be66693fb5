"""The constraint library every formulation writes through (integer domains and all-different here so far)."""
