"""Step 1: one PDF page read into typed records (:func:`.page.read_page`):
words and fragments with their style, vector rules, scripts and inline
fractions, struck, hidden and overprinted text, scanned regions and
pictures, in the page's reading orientation."""
