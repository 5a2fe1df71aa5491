"""Every rule the pipeline gates on, grouped by the asset it checks."""

from __future__ import annotations

from .accounting import ACCOUNTING_RULES
from .adr0006 import ADR0006_RULES
from .adr0018 import ADR0018_RULES
from .chunk_contract import CONTRACT_RULES
from .document_rules import CHUNK_STEP_RULES, CROP_RULES, EMBEDDING_RULES, PARSED_RULES, RAW_RULES
from .leaks import LEAK_RULES
from .ocr import OCR_RULES
from .rules import Rule

CHUNK_RULES: list[Rule] = [*CHUNK_STEP_RULES, *ADR0006_RULES, *CONTRACT_RULES, *LEAK_RULES, *ADR0018_RULES, *OCR_RULES]

RULES_BY_ASSET: dict[str, list[Rule]] = {
    "raw_documents": RAW_RULES,
    "parsed_documents": [*PARSED_RULES, *ACCOUNTING_RULES],
    "crops": CROP_RULES,
    "chunks": CHUNK_RULES,
    "embeddings": EMBEDDING_RULES,
}

ALL_RULES: list[Rule] = [rule for rules in RULES_BY_ASSET.values() for rule in rules]
