"""Errors a user can act on. The message is what the ingest summary shows."""


class DocumentRejected(Exception):
    """The input is not something the pipeline accepts (legacy .doc, encrypted,
    a zip bomb...). The message says what to do about it."""


class ParseFailed(Exception):
    """The input claimed a supported format but could not be read (corrupt,
    truncated, too slow). The message names what went wrong."""
