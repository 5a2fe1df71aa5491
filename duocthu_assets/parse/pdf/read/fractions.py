"""Inline stacked fractions in prose.

A fraction set inside a line of running text (``(ϵ/4γ, ϵ/γ)-admissible``)
is a numerator over a short drawn bar over a denominator, all three between
two words of the line. MuPDF reads the numerator and the denominator as
words of whatever lines their baselines fall on, so read as lines they come
out as ``( ϵ`` / ``4γ , ϵ`` / ``γ )-admissible``: the meaning is gone and
nothing says so. Here such a fraction is written back into its line, once
the blocks are lifted (a display formula keeps its lines as MuPDF set them
and is lifted whole, :mod:`..blocks.formulas`):

    find_inline_fractions   a bar, the words just above and below it within its ends, the line's word beside it
    fraction_text           numerator and denominator → ``a/b``
    join_inline_fractions   prose fragments with each fraction one word of its line
    stacked_pairs           two small words stacked over each other beside a line's word, still apart

**Convention**: an inline fraction is written ``a/b``; a numerator or a
denominator that is more than one character or one number is put in
parentheses: ``ϵ/(4γ)``, ``d/2``, ``1/(1+|x|^γ)``. Its characters are the
text layer's (the ``/`` and the parentheses are not: the character
accounting counts ``Word.source``).

What cannot be proven a fraction is not rewritten: two small words stacked
with no bar between them (``⌊d/2⌋`` drawn without a bar; a binomial
coefficient), a numerator whose word runs past the bar's ends. Those stay
as MuPDF read them, and :func:`stacked_pairs` finds them for the leak
detector (``leak_02``), which blocks the document rather than index a
flattened formula silently.

Pure: fragments and bars in, fragments out; no page, no document.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple

from ..geometry import BBox, union
from ..records import Fragment, PageContent, Rule, Word, make_fragment

FRACTION_MAX_EM = 12.0  # an inline fraction's bar is at most this many ems of its line's text long
STACK_GAP_EM = 0.6  # a numerator's bottom (a denominator's top) at most this far (ems of its size) off the bar
STACK_OVERLAP_EM = 0.6  # ... or over it by at most this (a word's box holds its font's ascent and descent, a radical its sign)
BAR_EDGE = 1.5  # points: the numerator's and the denominator's words lie within the bar's ends, give or take this
HOST_GAP_EM = 1.5  # the line's word beside the fraction is at most this far (ems of its size) from the bar's end
SMALL_FRAC = 0.9  # a stacked word is set at most this size of the line's text beside it ...
PAIR_MAX_CHARS = 24  # ... and is short: an index, an exponent, a numerator
BAND = 4.0  # points: the page's height in bands of this, for the largest size set in each


def fraction_bars(content: PageContent) -> list[Rule]:
    """A page's horizontal strokes that may be a fraction's bar: its short
    strokes and its horizontal rules."""
    return list(content.bars) + [r for r in content.rules if r.horizontal]


class InlineFraction(NamedTuple):
    bar: BBox
    numerator: tuple[tuple[int, int], ...]  # (fragment, word) of its words, left to right
    denominator: tuple[tuple[int, int], ...]
    host: tuple[int, int]  # the line's word beside it (it straddles the bar's height)


def _mid(b: BBox) -> float:
    return (b[1] + b[3]) / 2


def _plain(word: Word) -> str:
    """A numerator's or a denominator's word as it reads: its script marks,
    unless every character carries the same one (the whole word was marked
    against the baseline of the line MuPDF put it on)."""
    marks = word.marks
    if word.plain and marks and len(set(marks)) == 1 and marks[0] != " ":
        return word.plain
    return word.text


_ATOM = re.compile(r"^(?:.|[0-9]+(?:[.,][0-9]+)?)$")


def fraction_text(numerator: list[Word], denominator: list[Word]) -> str:
    """``a/b`` (:data:`module convention <duocthu_assets.parse.pdf.read.fractions>`):
    each side in parentheses unless it is one character or one number."""

    def side(words: list[Word]) -> str:
        text = " ".join(_plain(w) for w in sorted(words, key=lambda w: w.bbox[0]))
        return text if _ATOM.match(text) else f"({text})"

    return f"{side(numerator)}/{side(denominator)}"


def _nearest_row(found: list, above: bool, box=lambda item: item.bbox) -> list:
    """The items of ``found`` on the row nearest the bar (over it: the
    lowest; under it: the highest), ``box`` giving an item's box."""
    nearest = box(max(found, key=lambda t: box(t)[3]) if above else min(found, key=lambda t: box(t)[1]))
    return [t for t in found if min(box(t)[3], nearest[3]) - max(box(t)[1], nearest[1]) > 0.3 * (nearest[3] - nearest[1])]


def _side_of_bar(w: Word, by: float) -> str:
    """``"over"`` when ``w`` sits just over a bar at height ``by``,
    ``"under"`` just under it (its box within :data:`STACK_GAP_EM` of the
    bar, or over it by at most :data:`STACK_OVERLAP_EM`), else ``""``."""
    y0, y1 = w.bbox[1], w.bbox[3]
    slack = STACK_OVERLAP_EM * w.size
    if _mid(w.bbox) < by and by - STACK_GAP_EM * w.size <= y1 <= by + slack:
        return "over"
    if _mid(w.bbox) > by and by - slack <= y0 <= by + STACK_GAP_EM * w.size:
        return "under"
    return ""


def _keyed_box(item: tuple[tuple[int, int], Word]) -> BBox:
    return item[1].bbox


def find_inline_fractions(fragments: list[Fragment], bars: list[Rule]) -> list[InlineFraction]:
    """The inline fractions among ``fragments``' words: a horizontal bar
    (``bars``: short strokes and rules alike) with words just above it and
    just below it lying within its ends (and none running past them), and a
    word of the line beside it (straddling the bar's height, within
    :data:`HOST_GAP_EM` of its end) that is set large enough for the bar to
    be at most :data:`FRACTION_MAX_EM` of its ems, and the numerator and
    the denominator smaller than it (at most :data:`SMALL_FRAC`: an inline
    fraction is set in script size). A word is used once."""
    words = [((k, i), w) for k, f in enumerate(fragments) for i, w in enumerate(f.words) if not w.rotated]
    if not words or not bars:
        return []
    words.sort(key=lambda t: _mid(t[1].bbox))
    mids = [_mid(w.bbox) for _, w in words]
    reach = 2.0 * max(w.size for _, w in words)
    used: set[tuple[int, int]] = set()
    out: list[InlineFraction] = []
    for bar in sorted((b for b in bars if b.horizontal), key=lambda b: (b.pos, b.x0)):
        bx0, by, bx1 = bar.x0, bar.pos, bar.x1
        near = words[bisect.bisect_left(mids, by - reach) : bisect.bisect_right(mids, by + reach)]
        num: list[tuple[tuple[int, int], Word]] = []
        den: list[tuple[tuple[int, int], Word]] = []
        hosts: list[tuple[float, tuple[int, int], Word]] = []
        crossed = False
        for key, w in near:
            x0, y0, x1, y1 = w.bbox
            over = min(x1, bx1) - max(x0, bx0)
            if over <= 0:  # beside the bar: the line's own word when it straddles the bar's height
                if y0 < by - 0.5 and y1 > by + 0.5:
                    gap = bx0 - x1 if x1 <= bx0 + 1 else x0 - bx1
                    if gap <= HOST_GAP_EM * w.size:
                        hosts.append((max(gap, 0.0), key, w))
                continue
            side = _side_of_bar(w, by)
            if not side:
                if y0 < by < y1:
                    crossed = True  # a word through the bar: a strike-through, not a fraction
                    break
                continue
            if x0 < bx0 - BAR_EDGE or x1 > bx1 + BAR_EDGE:
                crossed = True  # a word running past the bar: an underline or a rule, not a fraction bar
                break
            (num if side == "over" else den).append((key, w))
        if crossed or not num or not den or not hosts:
            continue
        num, den = _nearest_row(num, True, _keyed_box), _nearest_row(den, False, _keyed_box)
        host = min(hosts, key=lambda h: h[0])
        if bx1 - bx0 > FRACTION_MAX_EM * host[2].size:
            continue
        if any(w.size > SMALL_FRAC * host[2].size for _, w in num + den):
            continue  # text over and under a rule in the line's own size: a table's or a form's rule, a display formula
        keys = [k for k, _ in num + den]
        if used.intersection(keys):
            continue
        used.update(keys)
        num.sort(key=lambda t: t[1].bbox[0])
        den.sort(key=lambda t: t[1].bbox[0])
        out.append(InlineFraction((bx0, by - 0.5, bx1, by + 0.5), tuple(k for k, _ in num), tuple(k for k, _ in den), host[1]))
    return out


def join_inline_fractions(fragments: list[Fragment], bars: list[Rule]) -> list[Fragment]:
    """``fragments`` (prose, once the blocks are lifted) with each inline
    fraction (:func:`find_inline_fractions`) one word of its line
    (:func:`fraction_text`), and the words of that line that MuPDF put on
    the numerator's or the denominator's line (``,`` and ``)-admissible``
    after ``ϵ/γ``) back on it: the fragments a fraction touches are made one
    line of the words on its height; their other words keep their own
    lines. A fraction whose fragments hold other words and scripts joined
    to them is left as it was (its words could not be followed)."""
    found = find_inline_fractions(fragments, bars)
    if not found:
        return fragments
    parent = list(range(len(fragments)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for fr in found:
        ks = {fr.host[0]} | {k for k, _ in fr.numerator + fr.denominator}
        first = root(min(ks))
        for k in ks:
            parent[root(k)] = first
    groups: dict[int, list[InlineFraction]] = {}
    for fr in found:
        groups.setdefault(root(fr.host[0]), []).append(fr)
    members: dict[int, list[int]] = {}
    for k in range(len(fragments)):
        if root(k) in groups:
            members.setdefault(root(k), []).append(k)
    replaced: dict[int, list[Fragment]] = {}  # first fragment of a group → what stands in the group's place
    for g, fractions in groups.items():
        taken = {key for fr in fractions for key in fr.numerator + fr.denominator}
        hosts = [fragments[k].words[i].bbox for fr in fractions for k, i in [fr.host]]
        band = (min(b[1] for b in hosts), max(b[3] for b in hosts))
        line_words: list[Word] = []
        sources: list[Word] = []
        rest: list[Fragment] = []
        ok = True
        for k in members[g]:
            f = fragments[k]
            mine = [w for i, w in enumerate(f.words) if (k, i) not in taken and band[0] <= _mid(w.bbox) <= band[1]]
            others = [w for i, w in enumerate(f.words) if (k, i) not in taken and not band[0] <= _mid(w.bbox) <= band[1]]
            if others and f.joined:
                ok = False
                break
            line_words += mine
            sources += list(f.joined) if f.joined else [w for i, w in enumerate(f.words) if (k, i) in taken or band[0] <= _mid(w.bbox) <= band[1]]
            if others:
                rest.append(make_fragment(others, f.line_id))
        if not ok:
            continue
        host_fragment = fragments[fractions[0].host[0]]
        line_id = host_fragment.line_id
        for fr in fractions:
            num = [fragments[k].words[i] for k, i in fr.numerator]
            den = [fragments[k].words[i] for k, i in fr.denominator]
            host = fragments[fr.host[0]].words[fr.host[1]]
            plain = "".join(w.source for w in num + den)
            box = union([fr.bar] + [w.bbox for w in num + den])
            line_words.append(Word(fraction_text(num, den), box, host.size, host.bold, host.italic, line_id, False, plain, " " * len(plain)))
        line_words.sort(key=lambda w: w.bbox[0])
        joined = make_fragment(line_words, line_id)._replace(joined=tuple(sources))
        replaced[min(members[g])] = [joined] + rest
    if not replaced:
        return fragments
    gone = {k for g, ks in members.items() if min(ks) in replaced for k in ks}
    out: list[Fragment] = []
    for k, f in enumerate(fragments):
        if k in replaced:
            out += replaced[k]
        elif k not in gone:
            out.append(f)
    return out


class StackedPair(NamedTuple):
    upper: Word
    lower: Word

    @property
    def bbox(self) -> BBox:
        return union([self.upper.bbox, self.lower.bbox])

    @property
    def text(self) -> str:
        return f"{self.upper.source} / {self.lower.source}"


def stacked_pairs(fragments: list[Fragment]) -> list[StackedPair]:
    """Two short words set smaller than the line's text beside them, one
    just over the other (they overlap across by half the narrower one) and
    straddling that word's middle, still two words: a fraction without a
    bar, a binomial coefficient, scripts stacked and not joined to their
    base. A word is in one pair. Words are found by where their top lies
    (a page's words sorted once), so a page costs about a line's words per
    word."""
    words = [w for f in fragments for w in f.words if not w.rotated]
    if len(words) < 3:
        return []
    words.sort(key=lambda w: w.bbox[1])
    tops = [w.bbox[1] for w in words]
    biggest = max(w.size for w in words)
    # the largest size set in each band of BAND points down the page: a word
    # with nothing set larger than it near its height has no line to stand beside
    band_max: dict[int, float] = {}
    for w in words:
        for k in range(int(w.bbox[1] // BAND), int(w.bbox[3] // BAND) + 1):
            if w.size > band_max.get(k, 0.0):
                band_max[k] = w.size
    out: list[StackedPair] = []
    used: set[int] = set()
    for a in words:
        if id(a) in used or len(a.source) > PAIR_MAX_CHARS:
            continue
        ax0, ay0, ax1, ay1 = a.bbox
        a_mid = (ay0 + ay1) / 2
        k = int(a_mid // BAND)
        if a.size > SMALL_FRAC * max(band_max.get(k, 0.0), band_max.get(k + 1, 0.0)):
            continue  # no word set larger at its middle or just under it: no host
        for b in words[bisect.bisect_left(tops, ay1 - 0.4 * a.size) : bisect.bisect_right(tops, ay1 + 0.6 * biggest)]:
            if b is a or id(b) in used or len(b.source) > PAIR_MAX_CHARS:
                continue
            bx0, by0, bx1, by1 = b.bbox
            b_mid = (by0 + by1) / 2
            if b_mid <= a_mid:
                continue  # b is the lower one
            over = min(ax1, bx1) - max(ax0, bx0)
            if over <= 0 or over < 0.5 * min(ax1 - ax0, bx1 - bx0):
                continue
            small = min(a.size, b.size)
            if not -0.4 * small <= by0 - ay1 <= 0.6 * small:
                continue
            middle = (a_mid + b_mid) / 2
            left, right = min(ax0, bx0), max(ax1, bx1)
            scripts = max(a.size, b.size)
            host = False
            for h in words[bisect.bisect_left(tops, a_mid - 2.5 * biggest) : bisect.bisect_right(tops, a_mid)]:
                if h is a or h is b or scripts > SMALL_FRAC * h.size:
                    continue
                hx0, hy0, hx1, hy1 = h.bbox
                if hy0 < a_mid < middle < b_mid < hy1 and (
                    0 <= left - hx1 <= HOST_GAP_EM * h.size or 0 <= hx0 - right <= HOST_GAP_EM * h.size
                ):
                    host = True
                    break
            if host:
                used.update((id(a), id(b)))
                out.append(StackedPair(a, b))
                break
    return out


BIG_OPERATOR_EM = 2.0  # a word's box this many times its size high is a big operator (∫, ∑) or a stretched delimiter
BARRED_MAX_CHARS = 6  # a numerator or a denominator over a bar with no smaller size to prove it: short


def _row_word(found: list[Word], above: bool) -> Word:
    """The row of ``found`` nearest the bar as one word (its texts joined, left to right)."""
    row = sorted(_nearest_row(found, above), key=lambda w: w.bbox[0])
    if len(row) == 1:
        return row[0]
    return Word("".join(w.source for w in row), union([w.bbox for w in row]), max(w.size for w in row), False, False, row[0].line_id)


def barred_pairs(fragments: list[Fragment], bars: list[Rule]) -> list[StackedPair]:
    """A short word just over a short bar and a short word just under it
    (at most :data:`BARRED_MAX_CHARS` characters each), both within the
    bar's ends and centred on it, the bar fitted to them (at most twice the
    wider one, plus a little): a fraction set in the line's own size
    (``df/dx`` of a display set in prose), which
    :func:`join_inline_fractions` does not prove. A word that spans the bar
    (a fraction already joined) is neither over nor under it."""
    # not a big operator (an ``∫`` lines high beside a fraction's bar): never a side of a fraction
    words = [w for f in fragments for w in f.words if not w.rotated and w.bbox[3] - w.bbox[1] <= BIG_OPERATOR_EM * w.size]
    if not words or not bars:
        return []
    words.sort(key=lambda w: _mid(w.bbox))
    mids = [_mid(w.bbox) for w in words]
    reach = 2.0 * max(w.size for w in words)
    out: list[StackedPair] = []
    for bar in bars:
        if not bar.horizontal:
            continue
        bx0, by, bx1 = bar.x0, bar.pos, bar.x1
        length = bx1 - bx0
        middle = (bx0 + bx1) / 2
        over: list[Word] = []
        under: list[Word] = []
        for w in words[bisect.bisect_left(mids, by - reach) : bisect.bisect_right(mids, by + reach)]:
            if w.bbox[2] <= bx0 or w.bbox[0] >= bx1:
                continue
            side = _side_of_bar(w, by)
            if side:
                (over if side == "over" else under).append(w)
        if not over or not under:
            continue
        a, b = _row_word(over, True), _row_word(under, False)
        if max(len(a.source), len(b.source)) > BARRED_MAX_CHARS:
            continue
        if min(a.bbox[0], b.bbox[0]) < bx0 - BAR_EDGE or max(a.bbox[2], b.bbox[2]) > bx1 + BAR_EDGE:
            continue
        wide = max(a.bbox[2] - a.bbox[0], b.bbox[2] - b.bbox[0])
        if length > 2 * wide + 2 or length > FRACTION_MAX_EM * max(a.size, b.size):
            continue
        if any(abs((w.bbox[0] + w.bbox[2]) / 2 - middle) > 0.25 * length + 1 for w in (a, b)):
            continue
        out.append(StackedPair(a, b))
    return out
