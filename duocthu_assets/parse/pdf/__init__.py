"""The PDF reader: bytes in, segments and lifted blocks out, in steps.

Each folder is a step, in the order :class:`.reader.PdfReader` runs them,
and imports only the steps below it (``.importlinter`` says so):

1. ``read/``: one page into typed records (words, fragments, rules, scripts,
   fractions, struck and hidden text, scans, pictures), in reading
   orientation;
2. ``furniture/``: running headers and footers, printed page numbers,
   page labels, found across all pages at once;
3. ``blocks/``: tables and two-dimensional formulas lifted out of the prose;
4. ``layout/``: the rest in reading order, as paragraphs and headings;
5. ``assemble``: segments and lifted blocks; ``accounting``: where every
   character of a page went; ``warnings``: what the reader says it could
   not read.

``records`` (the shared records and character classes), ``geometry`` and
``engine`` (PyMuPDF opened safely) are at the bottom; ``crops`` renders a
lifted block. ``audit/`` is a second opinion for ``checks/`` and ``bench/``
only: the reader never imports it.
"""
