"""Evaluation metrics, one module per model family (``detection``, ...); used by ``scripts/evaluate.py``."""
