"""A player's own tile set, learned from one photo: no training run, no torch.

``order`` assigns codes to the tiles of a set photo, ``learn`` cuts them out as views,
``profile`` keeps views and their classifier embeddings, ``store`` writes and reads profile files,
``head`` turns a profile into evidence combined with the classifier's probabilities, ``reading``
gives a classifier that reads with a set, ``cli`` is ``taicam sets``.
"""
