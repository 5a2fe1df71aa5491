"""Vietnamese typed in a legacy font encoding, read back as Latin-1 letters.

Before Unicode, Vietnamese was typed in fonts that draw its letters at the
code points of Latin-1 ones, and many laws, hospital documents and
spreadsheets still are:

- **TCVN3** (ABC, the ``.VnTime`` fonts): one code per letter —
  ``Céng hoµ x· héi chñ nghÜa`` is "Cộng hoà xã hội chủ nghĩa";
- **VNI** (the ``VNI-Times`` fonts): a vowel, then one code for its marks —
  ``Coäng hoøa xaõ hoäi chuû nghóa``.

A DOCX or XLSX stores such text as those Latin-1 letters, a PDF whose font
has no ToUnicode map reads them back, and a CSV saved from such a sheet
decodes to them in any single-byte code page. The text is valid Unicode,
and ftfy sees no mojibake in it (no UTF-8 read as cp1252): embedded, it is
found by no Vietnamese query, and nothing says so.

A word gives it away when it is not a Vietnamese syllable as it stands and
its reading in one of the two encodings is (:func:`legacy_readings`); a
French, German or Spanish word with accents reads as no syllable, a
Vietnamese word in Unicode is one already. A run of such words is asked
for (:func:`duocthu_assets.parse.encoding.mojibake.legacy_vietnamese_window`). Pure.
"""

from __future__ import annotations

import re
import string
import unicodedata
from functools import lru_cache

TCVN3 = "TCVN3"
VNI = "VNI"

GRAVE, ACUTE, TILDE, HOOK, DOT = "\u0300", "\u0301", "\u0303", "\u0309", "\u0323"
CIRCUMFLEX, BREVE, HORN = "\u0302", "\u0306", "\u031b"
TONES = frozenset((GRAVE, ACUTE, TILDE, HOOK, DOT))

# TCVN3: the Latin-1 code each Vietnamese letter is typed at (lowercase; the
# capitals' fonts, .VnTimeH, draw capitals at the same codes)
_TCVN3_LETTERS = {
    "µ": "à", "¸": "á", "¶": "ả", "·": "ã", "¹": "ạ",
    "¨": "ă", "»": "ằ", "¾": "ắ", "¼": "ẳ", "½": "ẵ", "Æ": "ặ",
    "©": "â", "Ç": "ầ", "Ê": "ấ", "È": "ẩ", "É": "ẫ", "Ë": "ậ",
    "®": "đ",
    "Ì": "è", "Ð": "é", "Î": "ẻ", "Ï": "ẽ", "Ñ": "ẹ",
    "ª": "ê", "Ò": "ề", "Õ": "ế", "Ó": "ể", "Ô": "ễ", "Ö": "ệ",
    "×": "ì", "Ý": "í", "Ø": "ỉ", "Ü": "ĩ", "Þ": "ị",
    "ß": "ò", "ã": "ó", "á": "ỏ", "â": "õ", "ä": "ọ",
    "«": "ô", "å": "ồ", "è": "ố", "æ": "ổ", "ç": "ỗ", "é": "ộ",
    "¬": "ơ", "ê": "ờ", "í": "ớ", "ë": "ở", "ì": "ỡ", "î": "ợ",
    "ï": "ù", "ó": "ú", "ñ": "ủ", "ò": "ũ", "ô": "ụ",
    "\u00ad": "ư", "õ": "ừ", "ø": "ứ", "ö": "ử", "÷": "ữ", "ù": "ự",
    "ú": "ỳ", "ý": "ý", "û": "ỷ", "ü": "ỹ", "þ": "ỵ",
    "¡": "Ă", "¢": "Â", "§": "Đ", "£": "Ê", "¤": "Ô", "¥": "Ơ", "¦": "Ư",
}
_TCVN3_TABLE = str.maketrans(_TCVN3_LETTERS)

# VNI: codes that follow a vowel and put marks on it (lowercase; capitals' codes lowercase to these) ...
_VNI_MARKS = {
    "ù": ACUTE, "ø": GRAVE, "û": HOOK, "õ": TILDE, "ï": DOT,
    "â": CIRCUMFLEX, "á": CIRCUMFLEX + ACUTE, "à": CIRCUMFLEX + GRAVE, "å": CIRCUMFLEX + HOOK, "ã": CIRCUMFLEX + TILDE, "ä": CIRCUMFLEX + DOT,
    "ê": BREVE, "é": BREVE + ACUTE, "è": BREVE + GRAVE, "ú": BREVE + HOOK, "ü": BREVE + TILDE, "ë": BREVE + DOT,
}
# ... and codes that are letters of their own
_VNI_LETTERS = {"ô": "ơ", "ö": "ư", "ñ": "đ", "í": "í", "ì": "ì", "æ": "ỉ", "ó": "ĩ", "ò": "ị", "î": "ỵ"}
_MARKS_ON = {CIRCUMFLEX: "aeo", BREVE: "a"}  # the vowels a circumflex or a breve can sit on

# a syllable, its tone mark taken off: initial consonant, vowels, final consonant
_INITIAL = "ngh|ng|gh|gi|kh|ph|th|tr|ch|nh|qu|b|c|d|đ|g|h|k|l|m|n|p|r|s|t|v|x"
_TAKES_FINAL = "uyê|iê|yê|uô|ươ|oa|oă|oe|uâ|uê|uy|a|ă|â|e|ê|i|o|ô|ơ|u|ư|y"
_OPEN_ONLY = "iêu|yêu|uôi|ươi|ươu|oai|oay|oao|oeo|uây|uya|uyu|ai|ao|au|ay|âu|ây|eo|êu|ia|iu|oi|ôi|ơi|ua|ui|uơ|ưa|ưi|ưu"
_FINAL = "ch|nh|ng|c|m|n|p|t"
_SYLLABLE = re.compile(f"(?:{_INITIAL})?(?:(?:{_TAKES_FINAL})(?:{_FINAL})?|oo(?:ng|c)|(?:{_OPEN_ONLY}))")  # oo: xoong, moóc

_EDGES = string.punctuation + "“”‘’„…–—"  # stripped off a word's ends (not « ¡ § or the soft hyphen: TCVN3 letters)


def is_syllable(word: str) -> bool:
    """Whether ``word`` (one word, any case) is a Vietnamese syllable:
    initial consonant, vowels and final consonant as Vietnamese spells
    them, and at most one tone mark."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    if sum(ch in TONES for ch in decomposed) > 1:
        return False
    toneless = unicodedata.normalize("NFC", "".join(ch for ch in decomposed if ch not in TONES))
    return _SYLLABLE.fullmatch(toneless) is not None


_HYPHEN_INSIDE = re.compile(r"(?<=\w)-(?=\w)")


def tcvn3_reading(word: str) -> str:
    """``word`` read as typed in a TCVN3 (``.VnTime``) font; in capitals
    when its ASCII letters (two or more) are: the capitals' font draws
    capitals at the lowercase codes (``HOµ`` is ``HOÀ``). A hyphen inside
    the word is ``ư`` too: TCVN3 types ``ư`` at 0xAD, which a PDF whose
    font has no ToUnicode map reads as WinAnsi's hyphen (``ng-êi``)."""
    reading = _HYPHEN_INSIDE.sub("ư", word).translate(_TCVN3_TABLE)
    ascii_letters = [ch for ch in word if ch.isascii() and ch.isalpha()]
    return reading.upper() if len(ascii_letters) >= 2 and all(ch.isupper() for ch in ascii_letters) else reading


def vni_reading(word: str) -> str | None:
    """``word`` read as typed in a VNI font (in its case), or None when a
    mark code follows no vowel it can sit on."""
    letters: list[str] = []  # each a base letter with its combining marks
    for ch in word.lower():
        marks = _VNI_MARKS.get(ch)
        if marks is None:
            letters.append(_VNI_LETTERS.get(ch, ch))
            continue
        if not letters:
            return None
        last = unicodedata.normalize("NFD", letters[-1])
        base, held = last[0], last[1:]
        if any(m in held for m in marks) or (marks[0] in _MARKS_ON and base not in _MARKS_ON[marks[0]]):
            return None
        if base not in "aeiouy":
            return None
        letters[-1] = unicodedata.normalize("NFC", last + marks)
    reading = unicodedata.normalize("NFC", "".join(letters))
    if word.isupper():
        return reading.upper()
    return reading[:1].upper() + reading[1:] if word[:1].isupper() else reading


# the inverse tables, to type Unicode as the legacy fonts store it (capitals with no TCVN3 code of their
# own at the lowercase one)
_TCVN3_TYPING = str.maketrans(
    {letter: c for c, letter in _TCVN3_LETTERS.items()}
    | {letter.upper(): c for c, letter in _TCVN3_LETTERS.items() if letter.upper() not in _TCVN3_LETTERS.values()}
)
_VNI_MARK_CODES = {marks: c for c, marks in _VNI_MARKS.items()}
_VNI_LETTER_CODES = {letter: c for c, letter in _VNI_LETTERS.items()}


def typed_in_tcvn3(text: str) -> str:
    """``text`` as a TCVN3 (``.VnTime``) font stores it (the inverse of
    :func:`tcvn3_reading`, to measure and test with): each Vietnamese
    letter at its Latin-1 code (capitals with no code of their own at the
    lowercase one, as the ``.VnTimeH`` capitals' fonts draw them)."""
    return text.translate(_TCVN3_TYPING)


def typed_in_vni(text: str) -> str:
    """``text`` as a VNI font stores it (the inverse of :func:`vni_reading`,
    to measure and test with): a vowel, then one code for its marks; ơ, ư,
    đ and the marked i and ỵ as codes of their own; other letters as they
    are."""
    out = []
    for ch in text:
        lower = ch.lower()
        base, *marks = unicodedata.normalize("NFD", lower)
        marks.sort(key=lambda m: m not in (CIRCUMFLEX, BREVE, HORN))  # the circumflex, breve or horn first, then the tone
        if marks[:1] == [HORN] and base in "ou":  # ơ, ư: a letter's code, then its tone's
            code = _VNI_LETTER_CODES[unicodedata.normalize("NFC", base + HORN)] + _VNI_MARK_CODES.get("".join(marks[1:]), "")
        elif lower in _VNI_LETTER_CODES and (base != "i" or marks):
            code = _VNI_LETTER_CODES[lower]
        elif base in "aeouy" and "".join(marks) in _VNI_MARK_CODES:
            code = base + _VNI_MARK_CODES["".join(marks)]
        else:
            code = lower
        out.append(code.upper() if ch.isupper() else code)
    return "".join(out)


def core(word: str) -> str:
    """``word`` without the punctuation around it."""
    return word.strip(_EDGES)


# codes no language writes inside a word: a TCVN3 letter that is a sign in Latin-1 (µ is "à", ­ the soft
# hyphen "ư"), a VNI vowel followed by a code that puts marks on it
_TCVN3_SIGNS = frozenset("µ¶·¸¹¨©ª«¬\u00ad®»¼½¾×÷¡¢£¤¥¦§")
_VNI_PAIR = re.compile(f"[aeiouy][{''.join(_VNI_MARKS)}]")


def _distinctive(encoding: str, word: str) -> bool:
    if encoding == TCVN3:
        return any(ch in _TCVN3_SIGNS for ch in word)
    return _VNI_PAIR.search(word.lower()) is not None


_SECTION = re.compile(r"§[A-Z0-9.\-]+")  # a section reference, not TCVN3's Đ (whose words go on in lowercase or in codes)


@lru_cache(maxsize=65536)
def legacy_readings(word: str) -> tuple[tuple[str, str, bool], ...]:
    """``(encoding, reading, distinctive)`` for each legacy encoding in which
    ``word`` — not a Vietnamese syllable as it stands — reads as one;
    ``distinctive`` when it is typed with a code no language writes inside
    a word (:data:`_TCVN3_SIGNS`, a VNI vowel and mark pair). ``word`` is
    one word without the punctuation around it; a lone character (``×``),
    a micro sign's unit (``µm``, which TCVN3 would read ``àm``) and a
    section sign's reference (``§A``, ``§IV``) are none."""
    if word.isascii() or len(word) < 2 or word.startswith("µ") or _SECTION.fullmatch(word) or is_syllable(word):
        return ()
    return tuple((encoding, reading, _distinctive(encoding, word)) for encoding, reading in _readings(word))


def _readings(word: str):
    for encoding, reading in ((TCVN3, tcvn3_reading(word)), (VNI, vni_reading(word))):
        if reading is not None and reading.lower() != word.lower() and is_syllable(reading):
            yield encoding, reading


def shown_as(word: str, encoding: str) -> str:
    """``word`` (punctuation and all) as ``encoding`` means it, where that
    reads as a Vietnamese syllable (``lín:`` is TCVN3 for ``lớn:``, though
    ``lín`` is one too), else as it stands."""
    letters = core(word)
    reading = dict(_readings(letters)).get(encoding) if letters and not letters.isascii() else None
    return word.replace(letters, reading) if reading else word
