"""Misencoded text over the corpus: what leak_02's misencoding test
(:func:`duocthu_assets.parse.encoding.mojibake.misencoding`) flags among every
segment of every corpus document, every format (what it must not flag: real
text), and how much of the corpus's real Vietnamese it finds once typed in
a legacy font encoding (TCVN3, VNI), per document. With ``/usr/share/i18n``
present, also the day and month names of every glibc locale, one text per
locale (real words of ~300 languages); with ``/usr/share/locale``, every
translated string of the installed programs' gettext catalogues (~2 M
strings in ~190 languages, real sentences; ~1 min), and its Vietnamese
strings of 5+ words typed in TCVN3 and VNI.

usage: python bench/misencoding.py [--corpus DIR] [--json OUT]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import duocthu_assets.parse.pdf.engine  # noqa: E402,F401 (MuPDF set up before any other import of it)
from duocthu_assets.formats import detect_format, refusal_reason  # noqa: E402
from duocthu_assets.parse import parse_document  # noqa: E402
from duocthu_assets.parse.encoding.legacy_vietnamese import TCVN3, VNI, typed_in_tcvn3, typed_in_vni  # noqa: E402
from duocthu_assets.parse.encoding.mojibake import legacy_vietnamese_window, misencoding  # noqa: E402
from duocthu_assets.settings import Settings  # noqa: E402

VIETNAMESE_LETTERS = set("ăâđêôơư")
MIN_WORDS = 5  # a Vietnamese segment this long is typed in the legacy encodings


def corpus_segments(corpus: Path):
    """(file, segment text) of every document of the corpus that parses."""
    for path in sorted(p for p in corpus.rglob("*") if p.is_file() and p.name != "MANIFEST.tsv"):
        data = path.read_bytes()
        fmt = detect_format(data)
        if refusal_reason(fmt, data):
            continue
        try:
            parsed = parse_document(data, fmt, Settings())
        except Exception:  # noqa: BLE001 - a rejected or damaged document has no segments to measure
            continue
        for segment in parsed.segments:
            yield str(path.relative_to(corpus)), segment.text


def locale_texts(root: Path = Path("/usr/share/i18n/locales")):
    """(locale, its day and month names as one text) from glibc's sources."""
    code = re.compile(r"<U([0-9A-Fa-f]{4,6})>")
    for path in sorted(root.glob("*")):
        source = path.read_text(encoding="utf-8", errors="replace")
        section = re.search(r"^LC_TIME(.*?)^END LC_TIME", source, re.S | re.M)
        if not section:
            continue
        names = [code.sub(lambda m: chr(int(m.group(1), 16)), s) for s in re.findall(r'"((?:<U[0-9A-Fa-f]+>|[^"<])*)"', section.group(1))]
        yield path.name, " ".join(n for n in names if n and "%" not in n)


def gettext_strings(root: Path = Path("/usr/share/locale")):
    """(language, translated string) of every gettext catalogue installed."""
    import gettext

    for path in sorted(root.glob("*/LC_MESSAGES/*.mo")):
        try:
            with path.open("rb") as fp:
                catalog = gettext.GNUTranslations(fp)._catalog  # the catalogue's msgid -> msgstr
        except (OSError, UnicodeDecodeError, LookupError):  # a damaged catalogue, or one in a charset Python lacks
            continue
        for msgid, text in catalog.items():
            if msgid and isinstance(text, str) and text.strip():
                yield path.parts[-3], text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared" / "corpus")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()

    flagged: dict[str, list[str]] = collections.defaultdict(list)
    vietnamese: list[tuple[str, str]] = []
    segments = chars = 0
    cpu = 0.0
    for name, text in corpus_segments(args.corpus):
        segments += 1
        chars += len(text)
        start = time.process_time()
        why = misencoding(text)
        cpu += time.process_time() - start
        if why:
            flagged[name].append(why[:160])
        if VIETNAMESE_LETTERS & set(text) and len(text.split()) >= MIN_WORDS and not why:
            vietnamese.append((name, text))
    print(f"corpus: {segments} segments, {chars} characters; flagged {sum(map(len, flagged.values()))} ({cpu:.2f} s CPU)")
    for name, whys in flagged.items():
        print(f"  {name}: {len(whys)}, e.g. {whys[0]}")

    found: dict[str, dict[str, list[int]]] = {}
    for encoding, typing in ((TCVN3, typed_in_tcvn3), (VNI, typed_in_vni)):
        per = found[encoding] = collections.defaultdict(lambda: [0, 0])
        for name, text in vietnamese:
            window = legacy_vietnamese_window(typing(text))
            per[name][0] += window is not None and window.encoding == encoding
            per[name][1] += 1
    print(f"\nVietnamese segments of {MIN_WORDS}+ words typed in a legacy encoding, found (same encoding named) / segments:")
    print("| document | TCVN3 | VNI |\n|---|---:|---:|")
    for name in sorted({n for n, _ in vietnamese}):
        print(f"| {name} | " + " | ".join(f"{found[e][name][0]}/{found[e][name][1]}" for e in (TCVN3, VNI)) + " |")

    locales = list(locale_texts()) if Path("/usr/share/i18n/locales").is_dir() else []
    wrong = [(name, why) for name, text in locales if (why := misencoding(text))]
    print(f"\nglibc locales' day and month names: {len(locales)} locales, flagged {len(wrong)}")
    for name, why in wrong:
        print(f"  {name}: {why[:120]}")
    strings: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    caught: dict[str, list[str]] = collections.defaultdict(list)
    typed_vi: list[str] = []
    for language, text in gettext_strings() if Path("/usr/share/locale").is_dir() else ():
        strings[language][1] += 1
        why = misencoding(text)
        if why:
            strings[language][0] += 1
            caught[language].append(why[:120])
        elif language == "vi" and len(text.split()) >= MIN_WORDS:
            typed_vi.append(text)
    print(f"\ngettext catalogues: {sum(n for _, n in strings.values())} strings in {len(strings)} languages, flagged {sum(f for f, _ in strings.values())}")
    for language, whys in caught.items():
        print(f"  {language}: {len(whys)} of {strings[language][1]}, e.g. {whys[0]}")
    for encoding, typing in ((TCVN3, typed_in_tcvn3), (VNI, typed_in_vni)):
        hits = sum(1 for text in typed_vi if (w := legacy_vietnamese_window(typing(text))) and w.encoding == encoding)
        print(f"  Vietnamese strings of {MIN_WORDS}+ words typed in {encoding}: found {hits}/{len(typed_vi)}")
    if args.json:
        args.json.write_text(json.dumps({"segments": segments, "flagged": flagged, "found": found, "locales": len(locales), "locales_flagged": wrong, "gettext": strings, "gettext_flagged": caught}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
