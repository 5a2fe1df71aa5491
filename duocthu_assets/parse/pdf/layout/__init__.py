"""Step 4: what is left of a page after its blocks are lifted, in reading
order (columns, the XY-cut), as paragraphs, and which of them are headings
(:func:`.page.layout_page`)."""
