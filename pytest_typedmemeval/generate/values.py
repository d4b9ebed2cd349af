"""One value pool per type, shared by gold and filler (VERTICALS.md Appendix D row 1).

The v2 corpora drew gold values from one half of an interleaved name list and filler values from
the other: the pool a name came from told which session was gold, without reading the question.
The cure is structural, not a check: **a haystack draws every value it needs from the one pool of
its type first, and the vertical decides afterwards which of them answers the question.** Nothing
here takes a role argument, so nothing about a value's form can depend on its role.

Values look like their type, and no two types share a form, so a reader can tell a person from a
place the way it can in real chat, but never gold from filler:

========  =====================================  ============================================
type      form                                   examples
========  =====================================  ============================================
person    first name + surname (two words)       Harriet Colby, Tomas Rendle
place     one word ending in a place suffix      Ashcombe, Wrenford, Millbury
shop      a surname-like stem + a trade word     Pellow Hardware, Garrick Motors
brand     one invented product word              Zentra, Lumivo
amount    a whole number of pounds, in words     forty pounds (see :func:`amount_words`)
========  =====================================  ============================================

Every pool is sorted and fixed (a corpus is a function of generator, seed and dial); draws go
through a :class:`random.Random` the caller derives from the seed. Every word of every pool is
checked at import against the shared scaffold vocabulary (:func:`..talk.scaffold_words`) and the
English words a judge or a question leans on, so a value never collides with ordinary text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterable, Sequence
from typing import Literal

ValueType = Literal["person", "place", "shop", "brand"]

FIRST_NAMES: tuple[str, ...] = tuple(sorted(set("""
    Harriet Tomas Anya Desmond Imogen Callum Priya Rafael Mirela Oswin Leonie Bartek Ines Gideon
    Maren Niamh Ewan Dorota Casimir Fenella Anselm Yusra Lorcan Greta Idris Odile Piers Saskia
    Teodor Ursula Wilfred Zofia Alun Benedikt Clemence Dagny Elspeth Florian Gwenda Horatio Isolde
    Jory Katya Leopold Malvina Nevin Orla Perpetua Quillon Rosalind Sefton Thea Ulric Vesna Wendell
    Xenia Yorick Zelda Anouk Bronagh Cedric Delphine Emrys Fabian Gisela Hamish Ottilie Rupert
    """.split())))
"""Given names: distinctive, rare as English words (no Rose, Mark, Will, Grace, Hope, May)."""

SURNAMES: tuple[str, ...] = tuple(sorted(set("""
    Colby Rendle Ashdown Pellow Garrick Thrale Vossberg Kettering Lindqvist Marchetti Okafor Pruett
    Quarmby Rowntree Stannard Trevelyan Ulverton Varga Winstanley Yardley Zielinski Abernethy
    Blakemore Carrow Dunmore Esterhazy Fairweather Gillard Hollins Iverson Jaggard Kilbride Lockyer
    Mortlake Nankivell Ormerod Penhaligon Quennell Roscoe Saltonstall Tremayne Underhill Vickery
    Wetherall Yelland Zamora Ainsworth Birtwistle Chilcott Dervish Eastwick Farquhar Gosling
    Haverford Ingleby Jessop Kinsella Lamprey Mottram Norcott Oldroyd Pargeter Radcliffe
    """.split())))
"""Surnames: none is an English word a sentence could hold for another reason."""

PLACE_STEMS: tuple[str, ...] = tuple(sorted(set("""
    Ash Wren Mill Thorn Hazel Elder Alder Bram Cran Dun Fern Gor Holm Kes Lang Marl Nor Pen Rad
    Shal Tam Ull Wex Yar Brack Chal Dray Esk Fal Grim
    """.split())))
PLACE_SUFFIXES: tuple[str, ...] = ("combe", "ford", "bury", "wick", "ley", "thorpe", "stead",
                                   "minster")
TRADES: tuple[str, ...] = ("Hardware", "Motors", "Joinery", "Glazing", "Plumbing", "Roofing",
                           "Electrics", "Removals", "Upholstery", "Locksmiths")
"""Trade words: a shop is a surname-like stem and one of these (two words, unlike a person's pair
only in its second word, which comes from this closed list)."""

_BRAND_HEADS = ("zen", "lum", "vor", "kal", "bry", "quo", "sty", "dex", "nyx", "ora", "tri", "vel")
_BRAND_TAILS = ("tra", "ivo", "ex", "ique", "ora", "ano", "ix", "ella")
BRANDS: tuple[str, ...] = tuple(sorted({(h + t).capitalize() for h in _BRAND_HEADS
                                        for t in _BRAND_TAILS}))
"""Invented product words, one per brand: a kettle or a blender is named the way products are."""

PLACES: tuple[str, ...] = tuple(sorted({stem + suffix for stem in PLACE_STEMS
                                        for suffix in PLACE_SUFFIXES}))
PEOPLE_COUNT = len(FIRST_NAMES) * len(SURNAMES)

_PLACE_FORM = re.compile(r"^[A-Z][a-z]+(?:" + "|".join(PLACE_SUFFIXES) + r")$")


def people(rng: random.Random, n: int, *, taken: Iterable[str] = ()) -> list[str]:
    """``n`` distinct people ("Harriet Colby"), none in ``taken``, no first name or surname twice
    in one draw (two Colbys in one haystack would let a reader pair them up)."""
    used = set(taken)
    used_words = {word for name in used for word in name.split()}
    firsts = [f for f in FIRST_NAMES if f not in used_words]
    lasts = [s for s in SURNAMES if s not in used_words]
    if n > min(len(firsts), len(lasts)):
        raise ValueError(f"cannot draw {n} people: {len(firsts)} first names and {len(lasts)} "
                         f"surnames left")
    return [f"{f} {s}" for f, s in zip(rng.sample(firsts, n), rng.sample(lasts, n))]


def draw(rng: random.Random, kind: ValueType, n: int, *, taken: Iterable[str] = ()) -> list[str]:
    """``n`` distinct values of ``kind`` from its one pool, none in ``taken``.

    The caller assigns roles afterwards (e.g. ``rng.randrange(n)`` picks the answering one): the
    draw itself cannot know which value will be gold."""
    if kind == "person":
        return people(rng, n, taken=taken)
    used = set(taken)
    if kind == "place":
        pool: Sequence[str] = PLACES
    elif kind == "brand":
        pool = BRANDS
    elif kind == "shop":
        stems = [s for s in SURNAMES if not any(s in t.split() for t in used)]
        picked = rng.sample(stems, n)
        return [f"{stem} {rng.choice(TRADES)}" for stem in picked]
    else:
        raise ValueError(f"unknown value type {kind!r}")
    left = [v for v in pool if v not in used]
    if n > len(left):
        raise ValueError(f"cannot draw {n} {kind} values: {len(left)} left")
    return rng.sample(left, n)


def value_type(value: str) -> ValueType | None:
    """The type a value's form says it is (``None``: no pool's form). Types never share a form."""
    parts = value.split()
    if len(parts) == 2 and parts[0] in FIRST_NAMES and parts[1] in SURNAMES:
        return "person"
    if len(parts) == 2 and parts[0] in SURNAMES and parts[1] in TRADES:
        return "shop"
    if len(parts) == 1 and _PLACE_FORM.match(value) and value in PLACES:
        return "place"
    if len(parts) == 1 and value in BRANDS:
        return "brand"
    return None


def pool_words() -> frozenset[str]:
    """Every lowercased word any value can contain (for vocabulary disjointness checks)."""
    words = {w.lower() for w in FIRST_NAMES + SURNAMES + PLACES + BRANDS + TRADES}
    return frozenset(words)


def _assert_pools() -> None:
    """Import-time checks: no type shares a form with another; no word is ordinary English the
    scaffold or the judge uses."""
    from . import talk

    forms = {"person": set(FIRST_NAMES) | set(SURNAMES), "place": set(PLACES),
             "brand": set(BRANDS), "trade": set(TRADES)}
    names = list(forms)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not forms[a] & forms[b], (a, b, sorted(forms[a] & forms[b])[:5])
    assert not any(_PLACE_FORM.match(b) for b in BRANDS), "a brand looks like a place"
    clash = pool_words() & (talk.scaffold_words() | talk.FORBIDDEN_WORDS | talk.NUMBER_WORDS)
    assert not clash, f"value words that ordinary text uses: {sorted(clash)[:10]}"


_assert_pools()

__all__ = ["BRANDS", "FIRST_NAMES", "PLACES", "SURNAMES", "TRADES", "ValueType", "draw", "people",
           "pool_words", "value_type"]
