"""taicam's vision side: photo -> detections -> tile readings -> layout -> legal hand -> score."""
