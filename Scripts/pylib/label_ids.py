"""Label identifiers: Vision-like, lowercase ASCII [a-z0-9_], unique.

normalize(): lowercase; apostrophes and dots are dropped ("St. Bernard" -> "st_bernard",
"jack-o'-lantern" -> "jack_o_lantern"); every other run of characters outside [a-z0-9]
(spaces, hyphens, ...) becomes one '_'; leading/trailing '_' are stripped.

Collision rule (assign()):
  1. A label's base identifier is normalize(first lemma).
  2. A base is ambiguous when two or more synsets of the namespace share it, or when it is
     reserved (already used by a higher-priority namespace). Every synset with an ambiguous base
     is renamed, none keeps the bare word, so the result does not depend on processing order.
  3. Renaming, for each such synset in the given order: the first of its other lemmas whose
     normalized form is nobody's base, not reserved and not yet assigned; otherwise
     base + '_' + normalize(first lemma of a hypernym), trying '@' then '@i' hypernyms in file
     order; as a last resort base + '_' + wnid.
Leaves (the 1000 classes) are assigned first with no reservations, so model.json never depends on
the taxonomy; taxonomy parents are then assigned with every leaf base and leaf identifier
reserved.
"""

import re

_DROP = re.compile(r"[.']")
_SEPARATORS = re.compile(r"[^a-z0-9]+")
VALID = re.compile(r"^[a-z0-9]+(_[a-z0-9]+)*$")


def normalize(text):
    s = _DROP.sub("", text.lower())
    s = _SEPARATORS.sub("_", s).strip("_")
    if not VALID.match(s):
        raise ValueError(f"cannot make an identifier from {text!r}")
    return s


def assign(wordnet, wnids, reserved=()):
    """Identifiers for wnids (same order). reserved: identifiers that must not be produced
    and bases that count as taken."""
    reserved = set(reserved)
    synsets = [wordnet.synset(w) for w in wnids]
    bases = [normalize(s.lemmas[0]) for s in synsets]
    count = {}
    for b in bases:
        count[b] = count.get(b, 0) + 1
    taken = set(reserved)
    result = [None] * len(wnids)
    for i, b in enumerate(bases):
        if count[b] == 1 and b not in reserved:
            result[i] = b
            taken.add(b)
    unavailable = set(bases) | taken
    for i, (s, b) in enumerate(zip(synsets, bases)):
        if result[i] is not None:
            continue
        chosen = None
        for lemma in s.lemmas[1:]:
            candidate = normalize(lemma)
            if candidate not in unavailable:
                chosen = candidate
                break
        if chosen is None:
            for h in s.all_hypernyms:
                candidate = b + "_" + normalize(wordnet.synset(h).lemmas[0])
                if candidate not in unavailable:
                    chosen = candidate
                    break
        if chosen is None:
            chosen = b + "_" + s.wnid
        result[i] = chosen
        unavailable.add(chosen)
    if len(set(result)) != len(result) or set(result) & reserved:
        raise AssertionError("identifier assignment produced a duplicate")
    return result
