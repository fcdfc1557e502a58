"""Minimal reader for WordNet 3.0 noun synsets (the data.noun file format, wndb(5WN)).

A data.noun line is:
  offset lex_filenum ss_type w_cnt {word lex_id}*w_cnt p_cnt {ptr_symbol offset pos src_tgt}*p_cnt | gloss
w_cnt is two hex digits, lex_id one hex digit, p_cnt three decimal digits. Words use '_' for
spaces. The offset is the byte offset of the line in the file; an ImageNet wnid is
'n' + that offset as 8 digits.
"""


class Synset:
    __slots__ = ("offset", "lemmas", "hypernyms", "instance_hypernyms", "gloss")

    def __init__(self, offset, lemmas, hypernyms, instance_hypernyms, gloss):
        self.offset = offset
        self.lemmas = lemmas                          # original case, '_' replaced by ' '
        self.hypernyms = hypernyms                    # '@' targets (wnids)
        self.instance_hypernyms = instance_hypernyms  # '@i' targets (wnids)
        self.gloss = gloss

    @property
    def wnid(self):
        return wnid_for_offset(self.offset)

    @property
    def name(self):
        return self.lemmas[0]

    @property
    def all_hypernyms(self):
        """'@' then '@i' targets, in file order within each kind, without duplicates."""
        out = []
        for w in self.hypernyms + self.instance_hypernyms:
            if w not in out:
                out.append(w)
        return out


def wnid_for_offset(offset):
    return "n%08d" % offset


def offset_for_wnid(wnid):
    if len(wnid) != 9 or wnid[0] != "n" or not wnid[1:].isdigit():
        raise ValueError(f"not a noun wnid: {wnid!r}")
    return int(wnid[1:])


class NounData:
    def __init__(self, data):
        self._data = data
        self._cache = {}

    def synset(self, wnid):
        s = self._cache.get(wnid)
        if s is None:
            s = self._parse(offset_for_wnid(wnid))
            self._cache[wnid] = s
        return s

    def _parse(self, offset):
        data = self._data
        if offset <= 0 or offset >= len(data) or data[offset - 1:offset] != b"\n":
            raise KeyError(f"no synset line at offset {offset}")
        end = data.find(b"\n", offset)
        line = data[offset:len(data) if end < 0 else end].decode("utf-8")
        head, _, gloss = line.partition(" | ")
        f = head.split()
        if int(f[0]) != offset or f[2] != "n":
            raise KeyError(f"offset {offset} does not start a noun synset")
        w_cnt = int(f[3], 16)
        pos = 4
        lemmas = []
        for _ in range(w_cnt):
            lemmas.append(f[pos].replace("_", " "))
            pos += 2
        p_cnt = int(f[pos])
        pos += 1
        hypernyms, instance_hypernyms = [], []
        for _ in range(p_cnt):
            symbol, target, target_pos = f[pos], f[pos + 1], f[pos + 2]
            pos += 4
            if target_pos != "n":
                continue
            if symbol == "@":
                hypernyms.append("n" + target)
            elif symbol == "@i":
                instance_hypernyms.append("n" + target)
        return Synset(offset, lemmas, hypernyms, instance_hypernyms, gloss.strip())

    def ancestors(self, wnid):
        """All transitive hypernyms ('@' and '@i') of wnid, excluding wnid itself."""
        seen = set()
        stack = list(self.synset(wnid).all_hypernyms)
        while stack:
            w = stack.pop()
            if w not in seen:
                seen.add(w)
                stack.extend(self.synset(w).all_hypernyms)
        return seen
