"""Repairs: each module mends one thing the detector or the classifier gets wrong about a photo (a
tile found as two halves, a sideways winning tile not flagged, a flower misread, ...), and
``second_looks`` tries them in a fixed order. A repair proposes mended readings and keeps a whole
reading of the hand (the ``read`` it is given) only on its own test; it never imports the pipeline.
"""
