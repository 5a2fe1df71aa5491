"""OMML equations as linear text (close to UnicodeMath): ``(a+b)/(2)``,
``x^(2)``, ``∑_(n=1)^(∞)(…)``, ``√(x)``."""

from __future__ import annotations

from lxml import etree

from .package import W_T, m

def _kids(el: etree._Element) -> list[etree._Element]:
    return [c for c in el if isinstance(c.tag, str) and not c.tag.endswith("Pr")]


_BRACKETS = {"(": ")", "[": "]", "{": "}", "|": "|", "⟨": "⟩", "‖": "‖"}


def _group(text: str) -> str:
    """An operand of /, ^ or _: bare when it is one symbol or already bracketed."""
    text = text.strip()
    if len(text) <= 1 or (text[0] in _BRACKETS and text.endswith(_BRACKETS[text[0]])):
        return text
    return f"({text})"


def _prop(el: etree._Element, prop: str, name: str, default: str) -> str:
    found = el.find(f"{m(prop)}/{m(name)}")
    return found.get(m("val"), default) if found is not None else default


def omml_linear(el: etree._Element) -> str:
    """An OMML equation as linear text (close to UnicodeMath)."""
    tag = etree.QName(el).localname
    part = {etree.QName(c).localname: c for c in _kids(el)}

    def sub(name: str) -> str:
        return omml_linear(part[name]) if name in part else ""

    if tag == "r":
        return "".join(t.text or "" for t in el.iter(m("t"), W_T))
    if tag == "f":
        bar = "¦" if _prop(el, "fPr", "type", "bar") == "noBar" else "/"  # ¦: a binomial, not a division
        return f"{_group(sub('num'))}{bar}{_group(sub('den'))}"
    # a script ends with a space, so x^k a reads as x^k times a
    if tag == "sSup":
        return f"{sub('e')}^{_group(sub('sup'))} "
    if tag == "sSub":
        return f"{sub('e')}_{_group(sub('sub'))} "
    if tag == "sSubSup":
        return f"{sub('e')}_{_group(sub('sub'))}^{_group(sub('sup'))} "
    if tag == "sPre":
        return f"_{_group(sub('sub'))}^{_group(sub('sup'))}{sub('e')}"
    if tag == "rad":
        degree = sub("deg")
        return f"√({degree}&{sub('e')})" if degree else f"√{_group(sub('e'))}"
    if tag == "nary":
        op = _prop(el, "naryPr", "chr", "∫")
        lower, upper = sub("sub"), sub("sup")
        return op + (f"_{_group(lower)}" if lower else "") + (f"^{_group(upper)}" if upper else "") + _group(sub("e"))
    if tag == "d":
        beg, end, sep = _prop(el, "dPr", "begChr", "("), _prop(el, "dPr", "endChr", ")"), _prop(el, "dPr", "sepChr", "|")
        return beg + sep.join(omml_linear(e) for e in el.findall(m("e"))) + end
    if tag == "func":
        return f" {sub('fName').strip()}{_group(sub('e'))}"
    if tag in ("acc", "groupChr"):
        return sub("e") + _prop(el, f"{tag}Pr", "chr", "\u0302" if tag == "acc" else "\u23df")
    if tag == "bar":
        return f"{sub('e')}\u0305"
    if tag == "limLow":
        return f"{sub('e')}_{_group(sub('lim'))}"
    if tag == "limUpp":
        return f"{sub('e')}^{_group(sub('lim'))}"
    if tag == "eqArr":
        return "; ".join(omml_linear(e) for e in el.findall(m("e")))
    if tag == "m":
        rows = [", ".join(omml_linear(e) for e in mr.findall(m("e"))) for mr in el.findall(m("mr"))]
        return "[" + "; ".join(rows) + "]"
    if tag == "oMathPara":
        return " ".join(omml_linear(c) for c in el.findall(m("oMath")))
    if tag == "oMath":
        return " ".join("".join(omml_linear(c) for c in _kids(el)).split())
    return "".join(omml_linear(c) for c in _kids(el))
