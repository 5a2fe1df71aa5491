"""The Office readers: DOCX (``word/``), XLSX (``sheet``) and CSV
(``delimited``), their tables turned into row units alike (``tabular``),
and an OOXML package checked before any of its XML is parsed."""
