"""The live camera mode (``taicam live``): the photo pipeline on a stream, with memory across frames.

capture (newest frame only) -> change gate (a still picture reuses its detections) -> detect ->
classify (only tiles that need it) -> track (identities, votes) -> stability clocks -> read once
per steady table (layout, decode, score: the photo pipeline's back half) -> announce.
See the README's "Live camera" section for the behaviour and the measured speed.
"""
