"""Datasets: the manifest format and its readers/writers (manifest, YOLO, COCO), crops, stats.

``datasets/`` at the top of the repo is the data folder; this package is the code that reads it.
"""
