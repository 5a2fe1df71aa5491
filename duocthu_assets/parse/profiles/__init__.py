"""What a collection's profile adds to a document's structure: legal
numbering (``legal``) and a formulary's vocabulary (``formulary``)."""
