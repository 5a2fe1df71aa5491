"""Every rule said in plain words (checks/plain.py): each rule has one, in
the shape a reviewer reads — what is wrong (no rule id, no field names), on
which pages, and what to do — and docs/checks.md lists them all."""

from __future__ import annotations

import re

from checks.plain import PLAIN, plain_message
from checks.registry import ALL_RULES
from checks.rules import RuleResult
from tests.support.paths import REPO

TECHNICAL = re.compile(r"_|\badr\b|\bchunk|\bsegment|\bbbox|\bspan\b|\bschema\b|\bblock_id\b")


def test_every_rule_has_plain_words_and_none_is_left_over():
    names = [rule.name for rule in ALL_RULES]
    assert sorted(PLAIN) == sorted(names)


def test_each_message_says_what_is_wrong_on_which_pages_and_what_to_do():
    for rule in ALL_RULES:
        plain = PLAIN[rule.name]
        assert plain.wrong and plain.wrong[0].islower() and not plain.wrong.endswith("."), rule.name
        assert not TECHNICAL.search(plain.wrong), (rule.name, plain.wrong)  # words a pharmacist reads, not field names
        assert plain.todo and not plain.todo.endswith("."), rule.name
        message = plain_message(rule.name, RuleResult(False, 2, ("page 3", "page 7"), (3, 7), "technical detail"))
        assert message.startswith(plain.wrong[0].upper() + plain.wrong[1:] + " (pages 3, 7). What to do: "), message
        assert message.endswith(plain.todo + ".") and "technical detail" not in message, message
        assert rule.name not in message  # the id is shown beside it, not inside it
    one = plain_message("no_pages_need_ocr", RuleResult(False, 1, ("page 1",), (1,), ""))
    assert one.startswith("Some pages are pictures of text (a scan) that could not be read well enough, or OCR is off for this "
                           "collection (page 1). What to do: scan the pages again")
    assert "(page" not in plain_message("document_accepted", RuleResult(False, 1, ("x.doc",), (), ""))


def test_the_docs_table_lists_every_rules_plain_words():
    docs = (REPO / "docs" / "checks.md").read_text()
    for rule in ALL_RULES:
        plain = PLAIN[rule.name]
        assert f"| `{rule.asset}.{rule.name}` | {plain.wrong} | {plain.todo} |" in docs, rule.name


def test_a_stopped_step_names_five_documents_then_counts_the_rest():
    from checks.plain import stopped_description

    stops = [(f"d{i}.pdf", "blocked", "chunks.rule", "Words.") for i in range(7)]
    said = stopped_description(stops).splitlines()
    assert said[0] == "d0.pdf blocked by chunks.rule. Words." and len(said) == 6
    assert said[-1].startswith("… and 2 more documents")
    assert stopped_description([("old.doc", "rejected", "raw_documents.document_accepted", "W.")]) == (
        "old.doc rejected: raw_documents.document_accepted. W."
    )
