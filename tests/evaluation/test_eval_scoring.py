"""The evaluation's pure scoring functions on hand-made cases with known answers."""

from __future__ import annotations

import math

import pytest

from duocthu_assets.evaluation.scoring import (
    ChunkExtent,
    Section,
    boundary_scores,
    prf,
    retrieval_scores,
    section_bleed,
)
from duocthu_assets.evaluation.significance import mcnemar
from duocthu_assets.evaluation.textmatch import NormalizedText, find_anchor, find_passage, normalize

# -- boundaries ---------------------------------------------------------------------


def test_boundaries_perfect():
    s = boundary_scores([10, 50, 90], [10, 50, 90])
    assert (s.precision, s.recall, s.f1) == (1.0, 1.0, 1.0)
    assert (s.tp, s.fp, s.fn) == (3, 0, 0)


def test_boundaries_off_by_one_needs_tolerance():
    strict = boundary_scores([11, 50], [10, 50], tolerance=0)
    assert (strict.tp, strict.fp, strict.fn) == (1, 1, 1)
    assert strict.precision == strict.recall == strict.f1 == 0.5
    lenient = boundary_scores([11, 50], [10, 50], tolerance=1)
    assert lenient.f1 == 1.0
    assert lenient.matches == ((10, 11), (50, 50))


def test_boundaries_one_missing_one_extra():
    s = boundary_scores([10, 30, 90], [10, 50, 90])
    assert (s.tp, s.fp, s.fn) == (2, 1, 1)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(2 / 3)
    assert s.f1 == pytest.approx(2 / 3)
    assert s.missed == (50,) and s.spurious == (30,)


def test_boundaries_empty_cases():
    both = boundary_scores([], [])
    assert (both.precision, both.recall, both.f1) == (1.0, 1.0, 1.0)
    nothing_found = boundary_scores([], [5, 9])
    assert (nothing_found.precision, nothing_found.recall, nothing_found.f1) == (0.0, 0.0, 0.0)
    assert nothing_found.fn == 2
    nothing_expected = boundary_scores([5], [])
    assert nothing_expected.f1 == 0.0 and nothing_expected.fp == 1


def test_boundaries_one_to_one_and_split_headings():
    # two predicted starts near one gold start: one matches, the other is a
    # heading's second line (within tolerance of a matched start): not an FP
    s = boundary_scores([100, 109], [100], tolerance=20)
    assert (s.tp, s.fp, s.fn, s.split) == (1, 0, 0, 1)
    # but far away it is a false positive
    s = boundary_scores([100, 150], [100], tolerance=20)
    assert (s.tp, s.fp, s.split) == (1, 1, 0)
    # maximum matching: each gold start gets its own predicted start
    s = boundary_scores([4, 6], [0, 5], tolerance=5)
    assert s.tp == 2


def test_boundaries_reject_negative_tolerance():
    with pytest.raises(ValueError):
        boundary_scores([1], [1], tolerance=-1)


def test_prf_formula():
    assert prf(3, 1, 2) == pytest.approx((0.75, 0.6, 2 * 0.75 * 0.6 / 1.35))


# -- section bleed --------------------------------------------------------------------

SECTIONS = [Section("a", "A", 0, 100), Section("b", "B", 100, 200), Section("c", "C", 200, 300)]


def test_section_bleed_constructed_chunks():
    chunks = [
        ChunkExtent("inside-a", ((0, 90),)),
        ChunkExtent("a-into-b", ((50, 150),)),  # 50 chars of each: bleeds
        ChunkExtent("b-touches-c", ((100, 205),)),  # 5 chars of c: within tolerance
        ChunkExtent("b-and-c-in-pieces", ((120, 140), (210, 260))),  # two spans in two sections
        ChunkExtent("descriptor", (), point=150),  # no text: not counted
    ]
    s = section_bleed(chunks, SECTIONS, tolerance=10)
    assert (s.bleeding, s.chunks) == (2, 4)
    assert s.share == 0.5
    assert [c for c, _ in s.examples] == ["a-into-b", "b-and-c-in-pieces"]
    assert s.examples[0][1] == ("a", "b")
    strict = section_bleed(chunks, SECTIONS, tolerance=0)
    assert strict.bleeding == 3  # the 5 characters of c now count


def test_section_bleed_short_section_wholly_inside_counts():
    sections = [Section("title", "", 0, 8), Section("body", "", 8, 400)]
    s = section_bleed([ChunkExtent("x", ((0, 300),))], sections, tolerance=20)
    assert s.bleeding == 1


def test_section_bleed_scope_and_empty():
    assert section_bleed([], SECTIONS).share is None
    outside = [ChunkExtent("late", ((300, 400),))]
    s = section_bleed(outside, SECTIONS + [Section("_outside_after", "", 300, 10**9)], scope=(0, 300))
    assert s.chunks == 0 and s.share is None
    # tuples work as sections too
    s = section_bleed([ChunkExtent("x", ((0, 150),))], [(0, 100), (100, 200)])
    assert s.bleeding == 1


# -- retrieval --------------------------------------------------------------------------


def test_retrieval_known_values():
    ranked = [["a", "b", "c"], ["x", "y", "z"], ["q", "r", "s"]]
    relevant = [{"a"}, {"z", "w"}, {"nothing-here"}]
    s = retrieval_scores(ranked, relevant, ks=(1, 3))
    assert s.first_relevant == (1, 3, None)
    assert s.recall_at == {1: pytest.approx(1 / 3), 3: pytest.approx(2 / 3)}
    assert s.mrr == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert s.correct_at(1) == [True, False, False]
    assert s.unanswerable == 0


def test_retrieval_perfect_and_empty():
    s = retrieval_scores([["a"], ["b"]], [{"a"}, {"b"}])
    assert all(v == 1.0 for v in s.recall_at.values()) and s.mrr == 1.0
    empty = retrieval_scores([], [])
    assert empty.n == 0 and empty.mrr is None and empty.recall_at[1] is None
    unanswerable = retrieval_scores([["a"]], [set()])
    assert unanswerable.unanswerable == 1 and unanswerable.mrr == 0.0
    with pytest.raises(ValueError):
        retrieval_scores([["a"]], [])


# -- McNemar ------------------------------------------------------------------------------


def _pairs(b: int, c: int, both: int = 0, neither: int = 0):
    a = [True] * b + [False] * c + [True] * both + [False] * neither
    bb = [False] * b + [True] * c + [True] * both + [False] * neither
    return a, bb


def test_mcnemar_exact_textbook_value():
    a, b = _pairs(10, 2, both=30, neither=5)
    m = mcnemar(a, b)
    assert (m.b, m.c, m.method) == (10, 2, "exact")
    assert m.p_value == pytest.approx(2 * (1 + 12 + 66) / 4096)  # 0.0386
    assert m.p_value == pytest.approx(0.0386, abs=1e-4)


def test_mcnemar_chi_square_for_many_discordant_pairs():
    a, b = _pairs(25, 10)
    m = mcnemar(a, b)
    assert m.method == "chi2-cc"
    assert m.statistic == pytest.approx((15 - 1) ** 2 / 35)
    assert m.p_value == pytest.approx(math.erfc(math.sqrt(m.statistic / 2)))  # chi2(1) survival


def test_mcnemar_no_difference():
    m = mcnemar([True, False, True], [True, False, True])
    assert (m.b, m.c, m.p_value, m.method) == (0, 0, 1.0, "none")
    assert mcnemar(*_pairs(3, 3)).p_value == 1.0
    with pytest.raises(ValueError):
        mcnemar([True], [True, False])


# -- normalized matching ---------------------------------------------------------------------


def test_normalize_folds_markup_case_digits_and_nfd():
    assert normalize("# Liều lượng  và\ncách dùng:") == "liều lượng và cách dùng"
    assert normalize("Lie\u0302\u0300u") == "liều"  # NFD from a PDF
    assert normalize("ماده ۱۲ | كي") == "ماده 12 کی"


def test_find_anchor_word_boundaries_context_and_offsets():
    raw = "# MỤC LỤC\n\nGENTAMICIN .... 3\n\n# GENTAMICIN\n\nTên chung quốc tế: Gentamicin.\n\nĐiều 10. X\n\nĐiều 1. Y"
    norm = NormalizedText.of(raw)
    toc = find_anchor(norm, "GENTAMICIN")
    real = find_anchor(norm, "GENTAMICIN", suffix="Tên chung quốc tế")
    assert toc is not None and real is not None and real > toc
    assert raw[norm.to_raw(real):].startswith("GENTAMICIN\n\nTên")
    assert norm.to_norm(raw.index("# GENTAMICIN") + 2) == real
    d1 = find_anchor(norm, "Điều 1")
    assert raw[norm.to_raw(d1):] == "Điều 1. Y"  # not inside "Điều 10"
    assert find_anchor(norm, "absent words") is None
    with pytest.raises(ValueError):
        find_anchor(norm, " .. ")
    assert find_passage(norm, "chung quốc tế: gentamicin") is not None


# -- relevance -------------------------------------------------------------------------------


def test_relevance_lies_in_holds_or_contains():
    from duocthu_assets.evaluation.gold import GoldQuery
    from duocthu_assets.evaluation.scoring import LocatedGold, relevant_chunks

    raw = "a " * 50 + "the answer is here " + "b " * 200
    norm = NormalizedText.of(raw)
    sections = [Section("s1", "", 0, 100), Section("s2", "", 100, len(norm))]
    located = LocatedGold(sections, [100], [], 0, len(norm))
    chunks = [
        ChunkExtent("mostly-s1", ((0, 90), (150, 170))),  # 90 of 110 in s1
        ChunkExtent("half-half", ((60, 160),)),  # 40 of 100 in s1, but not all of s1
        ChunkExtent("holds-s1", ((0, 400),)),  # lumps s1 into a long chunk: holds all of s1
        ChunkExtent("in-s2", ((200, 300),)),
        ChunkExtent("descriptor-in-s1", (), point=10),
    ]
    q = GoldQuery("q", "?", ("s1",))
    assert relevant_chunks(q, located, norm, chunks) == {"mostly-s1", "holds-s1", "descriptor-in-s1"}
    passage = GoldQuery("p", "?", (), passage="The answer is HERE.")
    start = norm.text.index("the answer")
    chunks.append(ChunkExtent("has-passage", ((start - 5, start + 30),)))
    chunks.append(ChunkExtent("text-only", (), text="so the answer is here"))
    assert relevant_chunks(passage, located, norm, chunks) == {"half-half", "holds-s1", "has-passage", "text-only"}
