"""Reporting a read hand: the confidence report (``confidence``), the places of tiles in words
(``tile_places``), and the annotated picture (``overlay``, its labels placed by ``tag_places``)."""
