"""Synthetic table scenes: whole Taiwanese winning hands rendered in 3D with their full ground truth.

``render_scene(rng, config=None, hand=None) -> (image_bgr, ManifestRecord)`` is the entry point;
``vision.synth.hands.random_winning_hand(rng)`` makes a random legal hand (hand JSON).
"""

from vision.synth.scene import SceneConfig, render_scene

__all__ = ["SceneConfig", "render_scene"]
