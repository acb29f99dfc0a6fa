"""What varies between synthetic scenes and by how much (``SceneConfig``)."""

from __future__ import annotations

from dataclasses import dataclass

#: Highest camera elevation (degrees) for a standing concealed row, whose faces look at the player.
STANDING_MAX_ELEVATION = 58.0


@dataclass
class SceneConfig:
    """What varies between scenes and by how much (defaults: the training distribution)."""

    width: int = 1280
    height: int = 960
    split: str = "train"  # which real crop sets may be used ("val": only the held-out sets)
    standing_probability: float = 0.55  # concealed row standing (else laid flat)
    claimed_sideways_probability: float = 0.3  # claimed tiles of melds turned sideways
    elevation_degrees: tuple[float, float] = (28.0, 90.0)
    azimuth_jitter_degrees: float = 25.0  # around the player's side
    any_azimuth_probability: float = 0.1  # camera from any side of the table
    roll_degrees: float = 8.0
    fov_degrees: tuple[float, float] = (50.0, 72.0)
    hand_fill: tuple[float, float] = (0.55, 0.97)  # hand width as a fraction of the image
    distractors: bool = True
    max_discards: int = 70
    occluder_probability: float = 0.35  # a player's hand over the table
    lens_probability: float = 0.6  # a visibly distorting lens (else an ideal pinhole)
    lens_k1: tuple[float, float] = (-0.02, 0.12)
    noise_sigma: tuple[float, float] = (0.0, 7.0)
    defocus_sigma: tuple[float, float] = (0.0, 1.2)
    motion_blur_probability: float = 0.12
    jpeg_quality: tuple[int, int] = (55, 95)
    grayscale_probability: float = 0.0
    saturation: tuple[float, float] = (1.0, 1.0)  # colourfulness scale; see like_real_photos()
    jpeg_in_memory: bool = True  # return the image as the JPEG would show it (writers encode it instead)
    shadows: bool = True
    photometric: bool = True

    @classmethod
    def like_real_photos(cls, **changes: object) -> SceneConfig:
        """These settings plus the colour finish measured against the real table photos
        (``datasets/DATA_CARD.md``): colourfulness scaled 0.3-0.9, 3% grey pictures.

        ``taicam synth`` renders with it; the plain defaults keep the renderer's full colour, which
        callers that ask for a clean picture (the live camera's scenario tests) rely on.
        """
        finish: dict[str, object] = {"saturation": (0.3, 0.9), "grayscale_probability": 0.03}
        return cls(**{**finish, **changes})  # type: ignore[arg-type]
