"""``taicam label DIR``: a local, keyboard-first web page that turns a folder of photos into a dataset.

The model proposes tiles, a person corrects them, and every change is saved at once as the team's
manifest (``vision.dataset.manifest``) with the hand JSON (README.md, "Hand JSON"). Modules, one job each:

- ``workspace``: the folder being labelled, its manifest, atomic saves and undo.
- ``hand``: the hand JSON derived from the labelled tiles' groups and roles plus the win context.
- ``proposals``: model proposals (detector + classifier) computed lazily and cached in a sidecar.
- ``crops``: cutting one tile out of a photo (contact sheets, classifier crop export).
- ``review``: per-class counts, unreviewed images, model/label disagreements.
- ``exchange``: YOLO / COCO import and export, classifier crops in class folders.
- ``server``: the HTTP server (stdlib) with its small JSON API; ``static/`` is the page.
- ``cli``: the ``taicam label`` command.
"""
