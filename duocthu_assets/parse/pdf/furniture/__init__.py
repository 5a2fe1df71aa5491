"""Step 2: what repeats around the body on every page — running headers and
footers, printed page numbers and labels, margin stamps — found across the
whole document at once (:func:`.detect.detect_furniture`)."""
