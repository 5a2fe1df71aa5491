"""Issue 40 item 5: a Vietnamese legal document with no collection.toml is
recognised from its own head and read with the legal profile; the evidence
is kept; a profile anyone named is obeyed."""

from __future__ import annotations

import pytest

from duocthu_assets.formats import detect_format
from duocthu_assets.parse.preview import read_preview
from duocthu_assets.parse.profiles.detect import apply_detection, detect_legal
from duocthu_assets.settings import Profile, Settings
from tests.support.legal_docs import DECREE, DECREE_BODY, DECREE_HEAD, PRECEDENT
from tests.support.paths import CORPUS, corpus_path

LEGAL_CORPUS = {
    "vn__bo_luat_dan_su_91-2015-QH13.docx", "vn__nghi_dinh_99-2022-ND-CP.docx", "vn__nghi_dinh_19-2019-ND-CP.docx",
    "diepxuan__49-2026-ND-CP.pdf", "diepxuan__50-2026-ND-CP.pdf", "vn__an_le_so_43-2021-AL.pdf",
}


def test_a_decree_shows_all_three_signals():
    evidence = detect_legal(DECREE)
    assert evidence == (
        "national header: CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM",
        "number line: Số: 21/2021/NĐ-CP",
        "articles in a run: Điều 1 to Điều 3 (3 found)",
    )


@pytest.mark.parametrize(
    "lines",
    [
        ["CỘNG HÒA XÃ HỘI CHỦ NGHĨA VIỆT NAM", "Độc lập - Tự do - Hạnh phúc", "ĐƠN XIN NGHỈ PHÉP", "Kính gửi: ..."],
        ["HỢP ĐỒNG DỊCH VỤ", "Căn cứ Điều 5. của Luật Thương mại;", "Điều 3. Giá dịch vụ", "Điều 7. Thanh toán"],
        ["Số: 12/2024/HĐ", "Hai bên thỏa thuận như sau."],
    ],
    ids=["letter-with-the-national-header", "articles-out-of-run", "number-line-alone"],
)
def test_one_signal_alone_is_not_a_law(lines):
    assert detect_legal(lines) == ()


def test_a_precedent_is_known_by_its_title():
    assert detect_legal(PRECEDENT) == ("precedent title: ÁN LỆ SỐ 43/2021/AL",)


def test_two_signals_without_the_header_are_enough():
    assert len(detect_legal(DECREE_HEAD[2:3] + DECREE_BODY)) == 2  # a copy that lost its national header


def test_detection_applies_only_when_nobody_named_a_profile():
    settings, evidence = apply_detection(Settings(), DECREE)
    assert (settings.profile, settings.profile_source) == (Profile.LEGAL, "detected") and len(evidence) == 3
    for named in (Settings(profile="generic", profile_source="collection.toml"),
                  Settings(profile="formulary", profile_source="--profile")):
        assert apply_detection(named, DECREE) == (named, ())
    plain = Settings()
    assert apply_detection(plain, ["Staff handbook"]) == (plain, ())


def test_collection_toml_naming_a_profile_turns_detection_off(tmp_path):
    from duocthu_assets.settings import collection_settings

    (tmp_path / "collection.toml").write_text('profile = "generic"\n', encoding="utf-8")
    assert collection_settings(tmp_path).profile_source == "collection.toml"
    assert collection_settings(tmp_path, "legal").profile_source == "--profile"
    assert collection_settings(tmp_path / "missing").profile_source == "collection.toml"  # found upward
    assert collection_settings(tmp_path, root=tmp_path / "x").profile_source == "default"


def test_a_bad_profile_source_is_refused_with_its_choices():
    with pytest.raises(ValueError, match="profile_source 'guess' must be one of default, collection.toml"):
        Settings(profile_source="guess")


@pytest.mark.parametrize("name", sorted(LEGAL_CORPUS))
def test_corpus_laws_are_recognised(name):
    data = corpus_path(name).read_bytes()
    settings, evidence = apply_detection(Settings(), read_preview(data, detect_format(data), Settings()).lines)
    assert settings.profile is Profile.LEGAL and evidence


def test_nothing_else_in_the_corpus_is_read_as_a_law():
    if not CORPUS.is_dir():
        pytest.skip("no corpus")
    for path in sorted(CORPUS.iterdir()):
        if path.suffix.lower() not in (".pdf", ".docx") or path.name in LEGAL_CORPUS:
            continue
        data = path.read_bytes()
        assert detect_legal(read_preview(data, detect_format(data), Settings()).lines) == (), path.name
