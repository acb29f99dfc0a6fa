"""Repairs: each module mends one thing the detector or the classifier gets wrong about a photo (a
tile found as two halves, a sideways winning tile not flagged, a flower misread, ...) by proposing
``Attempt`` s (``attempt.py``): tiles to read instead and the test their reading must pass. The
search in ``vision.pipeline.looks`` reads them in a fixed order; a repair reads no hand and never
imports the pipeline.
"""
