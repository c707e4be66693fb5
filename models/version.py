"""gridsat's version: a leaf module (it imports nothing), so every layer may read it."""

VERSION = "0.2.0"
