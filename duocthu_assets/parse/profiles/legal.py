"""Legal numbering as structure: the ``legal`` profile (laws, decrees,
circulars, contracts), for PDF and DOCX alike.

A legal document declares its structure in its numbering, not in styles:
``Phần thứ nhất`` > ``Chương I`` > ``Mục 1`` > ``Tiểu mục 1`` > ``Điều 5.`` (and
``Part``/``Chapter``/``Article N``/``Section N`` in English), with clauses
``1.`` (khoản) and points ``a)``/``đ)`` (điểm) inside an article. Under the
``legal`` profile:

- a paragraph opened by a label and its number is a heading
  (:func:`match_heading`). An article (``Điều 5.``, ``Article 5.``) needs the
  punctuation after its number, so "Điều 5 của Luật này ..." stays a sentence;
  a part, chapter or section label stands alone on its line or is followed by
  punctuation or an upper-case title;
- the document's type line (``NGHỊ ĐỊNH``, ``LUẬT``, ``THÔNG TƯ`` ...) and the
  closing ``Nơi nhận:`` are headings at the top level, so the preamble and the
  recipients are never filed under an article;
- a label alone on its line takes the title that follows it (``Chương I`` /
  ``NHỮNG QUY ĐỊNH CHUNG`` is one heading), and the type line its upper-case
  subject (``NGHỊ ĐỊNH`` / ``VỀ HỌ, HỤI, BIÊU, PHƯỜNG``);
- levels rank the kinds the document uses, outermost first (a decree with
  Chương, Mục and Điều has them at 1, 2, 3);
- a court precedent (its title line ``ÁN LỆ SỐ 43/2021/AL``) is read in its
  fixed parts: ``Nguồn án lệ:``, ``Khái quát nội dung án lệ:`` (with its
  ``- Tình huống án lệ:`` and ``- Giải pháp pháp lý:`` below it), the
  judgment's ``NỘI DUNG VỤ ÁN:``, ``NHẬN ĐỊNH CỦA TÒA ÁN:``, ``QUYẾT ĐỊNH:``
  … (:func:`precedent_part`), so a precedent has a heading trail whatever
  its styles;
- clauses and points stay list items inside their article, with their level
  kept below it (khoản = article + 1, điểm = article + 2): an article is the
  unit a citation names, so it is the section, and a chunk never spans two.

The ``generic`` profile does none of this for DOCX (ADR 0018: no heading is
invented from wording); this module is only called under ``legal``.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ...textnorm import ascii_slug

# canonical ranks, outermost first; levels are these ranks compacted to the kinds a document uses
TITLE, PART, CHAPTER, SECTION, SUBSECTION, ARTICLE, EN_SECTION = "title", "part", "chapter", "section", "subsection", "article", "en_section"
PRECEDENT_PART, PRECEDENT_SUB = "precedent_part", "precedent_sub"  # a court precedent's fixed parts (án lệ)
RANK = {TITLE: 0, PRECEDENT_PART: 1, PRECEDENT_SUB: 2, PART: 3, CHAPTER: 4, SECTION: 5, SUBSECTION: 6, ARTICLE: 7, EN_SECTION: 8}
CLAUSE, POINT = "clause", "point"

_NUMBER = r"(?:thứ\s+[^\W\d_]+|(?-i:[IVXLCDM]+)\b|\d+[a-z]?\b)"
_LABELS = [
    (SUBSECTION, r"tiểu\s+mục"),
    (PART, r"phần|part"),
    (CHAPTER, r"chương|chapter"),
    (SECTION, r"mục"),
    (ARTICLE, r"điều|article"),
    (EN_SECTION, r"section"),
]
_LABEL = re.compile(
    r"^(?P<label>" + "|".join(f"(?P<{kind}>{words})" for kind, words in _LABELS) + r")\s+(?P<num>" + _NUMBER + r")(?P<rest>.*)$",
    re.IGNORECASE | re.DOTALL,
)
_AFTER_PUNCT = re.compile(r"^\s*[.:\-–—]")
DOC_TYPES = (
    "HIẾN PHÁP", "BỘ LUẬT", "LUẬT", "PHÁP LỆNH", "NGHỊ QUYẾT", "NGHỊ QUYẾT LIÊN TỊCH", "NGHỊ ĐỊNH", "QUYẾT ĐỊNH",
    "CHỈ THỊ", "THÔNG TƯ", "THÔNG TƯ LIÊN TỊCH", "ÁN LỆ", "HỢP ĐỒNG", "LỆNH",
)
_DOC_TYPE = re.compile(r"^(?:" + "|".join(sorted(map(re.escape, DOC_TYPES), key=len, reverse=True)) + r")$")
_DOC_TYPE_START = re.compile(r"^(?:" + "|".join(sorted(map(re.escape, DOC_TYPES), key=len, reverse=True)) + r")(?=\s)")
_CLOSING = re.compile(r"^Nơi nhận\s*(?::|/)", re.IGNORECASE)
_APPENDIX = re.compile(r"^PHỤ LỤC(?:\s+(?:[IVXLC]+|\d+))?\b")
_CLAUSE = re.compile(r"^(\d{1,3})\.\s+\S")
_POINT = re.compile(r"^([a-zđ])\)\s+\S")
# A precedent (án lệ) is published in fixed parts (Resolution 04/2019/NQ-HĐTP): its summary's labelled
# paragraphs, then "NỘI DUNG ÁN LỆ" with the judgment's own parts under it. They are its structure, in a
# document whose title line is "ÁN LỆ SỐ 43/2021/AL"; elsewhere these words are text.
PRECEDENT_TITLE = re.compile(r"^ÁN\s+LỆ\s+SỐ\s+\d{1,4}\s*/\s*(?:19|20)\d\d\s*/\s*AL(?![A-Za-z])", re.IGNORECASE)
_PRECEDENT_PARTS = {
    PRECEDENT_PART: ("nguồn án lệ", "vị trí nội dung án lệ", "khái quát nội dung án lệ",
                     "quy định của pháp luật liên quan đến án lệ", "từ khóa của án lệ", "từ khoá của án lệ",
                     "nội dung án lệ", "nội dung vụ án", "nhận định của tòa án", "nhận định của toà án",
                     "xét thấy", "quyết định"),
    PRECEDENT_SUB: ("tình huống án lệ", "giải pháp pháp lý"),  # inside "Khái quát nội dung án lệ"
}
PRECEDENT_TITLE_WITHIN = 20  # paragraphs: a precedent's title opens it
TITLE_MAX_WORDS = 40  # a title line joined to its label is at most this long
ARTICLE_TITLE_MAX_WORDS = 160  # longer than this, an article "heading" is a body paragraph (Điều 29 of Decree 99 has 88 words)


@dataclass(frozen=True)
class LegalHeading:
    kind: str  # one of RANK's keys
    label: str  # the label as printed ("Điều", "Chương")
    number: str  # "17", "II", "thứ nhất"; "" for the type line and the closing block
    alone: bool  # nothing but the label and number (its title follows on the next line)


def _upper_title(rest: str) -> bool:
    """``rest`` is a space, then a word in capitals ("Chương I NHỮNG QUY ĐỊNH")."""
    words = rest.split()
    return rest[:1].isspace() and bool(words) and len(words[0]) >= 2 and words[0].isupper()


def _nfc(text: str) -> str:
    return unicodedata.normalize("NFC", text.strip())


def precedent_part(text: str) -> str | None:
    """PRECEDENT_PART or PRECEDENT_SUB when ``text`` is one of a precedent's
    part labels alone ("Nguồn án lệ:", "- Giải pháp pháp lý:", "NHẬN ĐỊNH
    CỦA TÒA ÁN:"), else None."""
    label = " ".join(_nfc(text).lstrip("-–• ").rstrip(" :.").lower().split())
    return next((kind for kind, labels in _PRECEDENT_PARTS.items() if label in labels), None)


def match_heading(text: str, precedent: bool = False) -> LegalHeading | None:
    """The legal heading ``text`` opens with, or None; ``precedent``: the
    document is a court precedent, whose part labels are headings too."""
    text = _nfc(text)
    if precedent:
        part = precedent_part(text)
        if part:
            return LegalHeading(part, text.lstrip("-–• ").rstrip(" :"), "", False)
    first = text.split("\n", 1)[0].strip()
    if _DOC_TYPE.match(first):  # "NGHỊ ĐỊNH" alone, or over its subject after a line break
        return LegalHeading(TITLE, first, "", first == text)
    type_word = _DOC_TYPE_START.match(text)
    if type_word and text.isupper() and len(text.split()) <= TITLE_MAX_WORDS:  # "NGHỊ ĐỊNH VỀ HỌ, HỤI ..." on one line
        return LegalHeading(TITLE, type_word.group(0), "", False)
    if _CLOSING.match(text):
        return LegalHeading(TITLE, "Nơi nhận", "", False)
    if _APPENDIX.match(text) and first.isupper():
        return LegalHeading(TITLE, "PHỤ LỤC", "", first == text)
    m = _LABEL.match(text)
    if not m:
        return None
    kind = next(k for k, _ in _LABELS if m.group(k))
    rest = m.group("rest")
    alone = not rest.strip(" .:")
    if kind in (ARTICLE, EN_SECTION):
        ok = alone or _AFTER_PUNCT.match(rest) is not None
    else:
        ok = alone or _AFTER_PUNCT.match(rest) is not None or _upper_title(rest)
    if not ok:
        return None
    if kind in (ARTICLE, EN_SECTION) and len(text.split()) > ARTICLE_TITLE_MAX_WORDS:
        return None
    return LegalHeading(kind, m.group("label"), " ".join(m.group("num").split()), alone)


def clause_kind(text: str) -> str | None:
    """``clause`` for "1. ...", ``point`` for "a) ..." / "đ) ...", else None."""
    text = _nfc(text)
    if _CLAUSE.match(text):
        return CLAUSE
    if _POINT.match(text):
        return POINT
    return None


def is_title_line(text: str, after: LegalHeading, emphasized: bool = False, more: bool = False) -> bool:
    """Whether ``text`` (a paragraph after a label standing alone) continues its
    title: set in capitals, or (``emphasized``: bold like the label, in a PDF)
    not ending like a sentence. ``more``: a second or third line, which must
    be in capitals or emphasized."""
    text = _nfc(text)
    if not text or match_heading(text) or clause_kind(text):
        return False
    words = text.split()
    if len(words) > TITLE_MAX_WORDS:
        return False
    letters = [c for c in text if c.isalpha()]
    upper = bool(letters) and sum(c.isupper() for c in letters) >= 0.8 * len(letters)
    if upper:
        return True
    if after.kind == TITLE or more:
        return emphasized  # the type line's subject: in capitals, or bold under it
    return emphasized or not text.endswith((".", ";", ":", ","))


def levels(kinds: list[str]) -> dict[str, int]:
    """Heading level per kind: the document's kinds ranked, outermost 1."""
    present = sorted(set(kinds), key=RANK.__getitem__)
    return {kind: i + 1 for i, kind in enumerate(present)}


@dataclass(frozen=True)
class Marked:
    """A paragraph's part in the legal structure: ``heading`` (with ``kind``
    and ``level``), ``join`` (the title line of the heading before it), a
    ``clause``/``point`` at ``level``, or ``body``."""

    role: str
    level: int = 0
    kind: str = ""
    in_article: bool = False  # after an article heading, before the next heading above it or the closing block


def mark(texts: list[str], eligible: list[bool] | None = None, emphasized: list[bool] | None = None) -> list[Marked]:
    """The legal role of each paragraph, in reading order. ``eligible[i]``
    False keeps paragraph i out of the structure (a table row);
    ``emphasized[i]`` says it is set in bold (PDF), which lets it continue the
    title of a label above it."""
    eligible = eligible if eligible is not None else [True] * len(texts)
    emphasized = emphasized if emphasized is not None else [False] * len(texts)
    found: list[tuple[int, LegalHeading]] = []
    joined: set[int] = set()
    precedent = any(ok and PRECEDENT_TITLE.match(_nfc(t)) for t, ok in zip(texts[:PRECEDENT_TITLE_WITHIN], eligible))
    i = 0
    while i < len(texts):
        head = match_heading(texts[i], precedent) if eligible[i] else None
        if head is None:
            i += 1
            continue
        found.append((i, head))
        j = i + 1
        if head.alone:
            limit = 1 if head.kind == TITLE else 2
            while j < len(texts) and j - i <= limit and eligible[j] and is_title_line(texts[j], head, emphasized[j], j > i + 1):
                joined.add(j)
                j += 1
        i = j
    level_of = levels([h.kind for _, h in found])
    heading_at = {i: h for i, h in found}
    out: list[Marked] = []
    article_level = 0
    for i, text in enumerate(texts):
        if i in heading_at:
            kind = heading_at[i].kind
            level = level_of[kind]
            article_level = level if kind in (ARTICLE, EN_SECTION) else 0
            out.append(Marked("heading", level, kind))
        elif i in joined:
            out.append(Marked("join"))
        elif article_level and eligible[i] and clause_kind(text):
            which = clause_kind(text)
            out.append(Marked(which, article_level + (1 if which == CLAUSE else 2), in_article=True))
        else:
            if not eligible[i] and _CLOSING.match(_nfc(text)):
                article_level = 0  # the recipients' table ends the last article
            out.append(Marked("body", in_article=bool(article_level)))
    return out


def reads_as_sentence(text: str) -> bool:
    """A clause or point, or a line ending like a sentence (. : ;): body text
    of an article, whatever style it was given."""
    text = _nfc(text)
    return clause_kind(text) is not None or text.endswith((".", ":", ";"))


# ------------------------------------------------------------------ section keys

_KEY_LABELS = {
    "điều": "dieu", "chương": "chuong", "mục": "muc", "tiểu mục": "tieu_muc", "phần": "phan",
    "article": "article", "section": "section", "part": "part", "chapter": "chapter",
}
# Persian and Arabic legal labels, keyed as they are read aloud
_ARABIC_SCRIPT_LABELS = [
    ("تبصره", "tabsare"), ("ماده", "madde"), ("مادّه", "madde"), ("فصل", "fasl"), ("بخش", "bakhsh"), ("باب", "bab"),
    ("قسمت", "ghesmat"), ("بند", "band"), ("المادة", "al_madda"), ("مادة", "madda"), ("الفصل", "al_fasl"),
    ("الباب", "al_bab"), ("الجزء", "al_juz"), ("القسم", "al_qism"),
]
_ARABIC_LABEL = re.compile(
    r"^(?P<label>" + "|".join(sorted((re.escape(w) for w, _ in _ARABIC_SCRIPT_LABELS), key=len, reverse=True)) + r")\s*"
    r"(?P<num>[0-9\u0660-\u0669\u06f0-\u06f9]+)(?![0-9\u0660-\u0669\u06f0-\u06f9])"
)
_CJK_ARTICLE = re.compile(r"^第\s*(?P<num>[0-9〇零一二三四五六七八九十百千]+)\s*(?P<label>[条條章节節编編款項项部])")
_CJK_LABELS = {"条": "tiao", "條": "tiao", "章": "zhang", "节": "jie", "節": "jie", "编": "bian", "編": "bian", "款": "kuan", "項": "xiang", "项": "xiang", "部": "bu"}
_CJK_DIGITS = {"〇": 0, "零": 0, "一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}


def _cjk_number(text: str) -> str:
    if text.isdigit():
        return str(int(text))
    total, current = 0, 0
    for ch in text:
        if ch in _CJK_DIGITS:
            current = _CJK_DIGITS[ch]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            total += (current or 1) * unit
            current = 0
    return str(total + current)


def _ascii_digits(text: str) -> str:
    return "".join(str(unicodedata.digit(c)) if c.isdigit() else c for c in text)


def numbering_key(title: str) -> str | None:
    """``dieu_17`` for "Điều 17. ...", ``chuong_ii`` for "Chương II", ``madde_3``
    for "ماده ۳ ...", ``tiao_17`` for "第十七条"; None when the title opens with
    no legal label and number."""
    text = _nfc(title)
    m = _LABEL.match(text)
    if m and not m.group("rest")[:1].isalnum():
        label = _KEY_LABELS.get(" ".join(m.group("label").lower().split()), ascii_slug(m.group("label")))
        number = ascii_slug(m.group("num"))
        return f"{label}_{number}" if number else None
    m = _ARABIC_LABEL.match(text)
    if m:
        label = dict(_ARABIC_SCRIPT_LABELS)[m.group("label")]
        return f"{label}_{int(_ascii_digits(m.group('num')))}"
    m = _CJK_ARTICLE.match(text)
    if m:
        return f"{_CJK_LABELS[m.group('label')]}_{_cjk_number(m.group('num'))}"
    return None
