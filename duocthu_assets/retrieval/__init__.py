"""Search: the index (refreshed by :mod:`.refresh` from :mod:`.document_rows`, described by
:mod:`.info`, held warm by :mod:`.index`; on disk :mod:`.layout`, :mod:`.lexical`), queries and ranking
(:mod:`.query`), the answer layer's obligations (:mod:`.answer`), the warm
Python API (:mod:`.searcher`) and the HTTP server (:mod:`.server`).

Nothing here imports Dagster.
"""

from .answer import ANSWER_SCHEMA, WITHHELD, Answer, CropRef, answer_payload, format_hits, render_answer, withhold_numbers
from .index import LoadedIndex, SearchError, load_index, read_index_rows
from .info import IndexInfo, index_is_current, read_index_info
from .layout import INDEX_ASSET
from .layout import index_schema as search_index_schema
from .query import DEFAULT_MODE, MAX_K, MODES, Hit, HitAttachment, SearchMode, normalize_query, validate_query
from .refresh import IndexRefresh, refresh_search_index
from .searcher import Searcher, answer, search

__all__ = [
    "ANSWER_SCHEMA", "DEFAULT_MODE", "INDEX_ASSET", "MAX_K", "MODES", "WITHHELD",
    "Answer", "CropRef", "Hit", "HitAttachment", "IndexInfo", "IndexRefresh", "LoadedIndex", "SearchError", "SearchMode",
    "Searcher", "answer", "answer_payload", "format_hits", "index_is_current", "load_index", "normalize_query",
    "read_index_info", "read_index_rows", "refresh_search_index", "render_answer", "search", "search_index_schema", "validate_query",
    "withhold_numbers",
]
