"""The folded lexical field (issue 40 item 1): accents, đ, Arabic-keyboard
letters and zero-width non-joiners are optional; the folded postings are
the exact ones merged, scoring as BM25 over the folded texts would."""

from __future__ import annotations

import numpy as np

from duocthu_assets.retrieval.lexical import (
    CollectionBM25,
    LexicalIndex,
    PartTerms,
    folded_query_terms,
    lexical_scores,
    lexical_table,
    terms,
)
from duocthu_assets.textnorm import fold

TEXTS = [
    "Điều 319. Hiệu lực của thế chấp tài sản. Hợp đồng thế chấp có hiệu lực từ thời điểm giao kết.",
    "Điều 117. Điều kiện có hiệu lực của giao dịch dân sự.",
    "Đăng ký biện pháp bảo đảm có hiệu lực đối với người thứ ba.",
    "ماده ۱۷ قرارداد: کارفرما می‌خواهد مزد را بپردازد.",
    "Liều dùng amoxicilin cho người suy thận: giảm liều.",
    "Cá mà má mã ma",
]


def _parts(texts: list[str]) -> tuple[CollectionBM25, CollectionBM25]:
    table = lexical_table([f"d{i}" for i in range(len(texts))], list(range(len(texts))), texts)
    exact = PartTerms.from_counts(table)
    return CollectionBM25([exact]), CollectionBM25([exact.folded()])


def test_fold_strips_vietnamese_accents_and_persian_keyboard_variants():
    assert fold("Điều 117 Bộ luật Dân sự") == "dieu 117 bo luat dan su"
    assert fold("ĐĂNG KÝ") == "dang ky"
    assert fold("كتاب يک") == fold("کتاب یک")
    assert fold("می‌خواهم") == "می خواهم"
    assert fold(fold("Ngữ pháp")) == fold("Ngữ pháp")


def test_folded_postings_score_as_bm25_over_the_folded_texts():
    _, folded = _parts(TEXTS)
    reference = LexicalIndex.build([fold(t) for t in TEXTS])
    for query in ["dieu 319 the chap", "ma ca", "hieu luc", "dang ky bien phap bao dam"]:
        got = folded.term_scores([fold(t) for t in terms(query)])
        assert np.allclose(got, reference.scores(query), atol=1e-5), query


def test_an_unaccented_query_finds_what_the_accented_one_finds():
    exact, folded = _parts(TEXTS)
    for accented in ["thế chấp tài sản có hiệu lực", "đăng ký biện pháp bảo đảm", "điều kiện giao dịch dân sự"]:
        typed = fold(accented)
        best_accented = int(np.argmax(lexical_scores(exact, folded, accented)))
        assert int(np.argmax(lexical_scores(exact, folded, typed))) == best_accented, typed


def test_persian_typed_on_an_arabic_keyboard_or_joined_finds_the_zwnj_text():
    exact, folded = _parts(TEXTS)
    for query in ["كارفرما ميخواهد", "کارفرما می خواهد", "کارفرما میخواهد"]:
        assert int(np.argmax(lexical_scores(exact, folded, query))) == 3, query
    assert folded_query_terms("میخواهد", folded) == ["می", "خواهد"]


def test_question_words_are_left_out_of_the_lexical_query():
    from duocthu_assets.retrieval.lexical import without_question_words

    assert without_question_words("Điều 319 quy định gì") == "điều 319"
    assert without_question_words("the chap co hieu luc tu khi nao") == "the chap co hieu luc"
    assert without_question_words("tôi có được đòi lãi không") == "có được đòi lãi"
    assert without_question_words("khi nào") == "khi nào"  # nothing else left: the query stands


def _short_label_and_answer() -> list[str]:
    """A monograph's one-line "Loại thuốc" chunk (its name and nothing the
    question asks), the section that answers, other monographs' labels and
    unrelated text that shares the question's one distinctive word."""
    filler = "thuốc được dùng theo chỉ định của bác sĩ trong thời gian điều trị và theo dõi người bệnh "
    return [
        "Ampicilin và sulbactam. Loại thuốc: kháng sinh.",
        "Ampicilin và sulbactam. Dược lý: sulbactam có vai trò ức chế beta-lactamase. " + filler * 4,
        "Gentamicin. Loại thuốc: kháng sinh nhóm aminoglycosid.",
        "Paracetamol. Loại thuốc: giảm đau, hạ sốt.",
    ] + [filler * 2 + "có vai trò"] * 3


def test_a_short_chunk_holding_only_the_name_does_not_outrank_the_answer(monkeypatch):
    from duocthu_assets.retrieval import lexical

    texts, query = _short_label_and_answer(), "vai trò của sulbactam và ampicilin"
    exact, folded = _parts(texts)
    assert int(np.argmax(lexical_scores(exact, folded, query))) == 1, "the section that answers should rank first"
    assert int(np.argmax(LexicalIndex.build(texts).scores(query))) == 1
    # the violation: Lucene's length normalization (b 0.75) puts the one-line label first
    monkeypatch.setattr(lexical, "B", lexical.LUCENE_B)
    assert int(np.argmax(lexical_scores(exact, folded, query))) == 0
    assert int(np.argmax(LexicalIndex.build(texts, b=lexical.LUCENE_B).scores(query))) == 0
