"""The inbox: which files are documents, their doc_ids, and the registry
of every document the warehouse has seen."""
