"""Training code (PyTorch). Imported only by ``scripts/train_*.py`` and the training smoke tests.

The runtime (``vision.models``) never imports this package, so torch stays a training-only extra.
"""
