"""Two questions in one, split and interleaved (retrieval/clauses.py)."""

from __future__ import annotations

from duocthu_assets.retrieval.clauses import interleave, split_clauses


def _names(text: str) -> list[str]:
    return ["blds"] if "dân sự" in text.lower() or "dan su" in text.lower() else []


def test_splits_two_questions_joined_by_va():
    query = "lãi suất trong họ bị giới hạn bao nhiêu và Bộ luật Dân sự giới hạn lãi suất vay thế nào"
    assert split_clauses(query, _names) == ["lãi suất trong họ bị giới hạn bao nhiêu", "Bộ luật Dân sự giới hạn lãi suất vay thế nào"]
    typed = "lai suat trong ho bi gioi han bao nhieu va bo luat dan su gioi han lai suat vay the nao"
    assert split_clauses(typed, _names) == ["lai suat trong ho bi gioi han bao nhieu", "bo luat dan su gioi han lai suat vay the nao"]


def test_splits_when_only_one_half_names_a_document():
    query = "điều kiện về tuổi để tham gia dây họ và người thành niên theo Bộ luật Dân sự là bao nhiêu tuổi"
    assert split_clauses(query, _names)[1].startswith("người thành niên")


def test_one_question_with_va_stays_whole():
    assert split_clauses("điều kiện và thủ tục đăng ký thế chấp quyền sử dụng đất", _names) == []
    assert split_clauses("Ampicilin và sulbactam liều dùng cho trẻ em", _names) == []
    assert split_clauses("quyền và nghĩa vụ của bên thế chấp", _names) == []


def test_interleave_takes_each_rankings_next_once():
    assert interleave([[(1, 0.9), (2, 0.8), (3, 0.7)], [(4, 0.5), (2, 0.4)]], 4) == [(1, 0.9), (4, 0.5), (2, 0.8), (3, 0.7)]
