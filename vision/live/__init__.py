"""The live camera mode (``taicam live``): the photo pipeline on a stream, with memory across frames.

capture (newest frame only) -> detect -> classify (only tiles that need it) -> track (identities,
votes) -> stability clock -> read once per steady table (layout, decode, score) -> announce.
See the README's "Live camera" section for the behaviour and the measured speed.
"""
