"""A held-out check of `wordnet.attributes`' pole rule, on WordNet's attribute adjectives.

The sample is not chosen by us: each head adjective synset that has an
attribute noun and a direct antonym, taken from the shipped lexicon. The pole
rule (derivations and stems, `agent_nb.data.wordnet`) is checked against a
rule it never uses: **morphological markedness**. Of an antonym pair where one
word is the other with a negating prefix (un-, in-, im-, il-, ir-, non-, dis-)
or where one ends in "-less" and the other in "-ful" on one stem, the plain
(or "-ful") word is the + pole: "expensive"/"inexpensive", "careful"/"careless".
"""

from __future__ import annotations

import dataclasses

from agent_nb.data import wordnet, wordnet_graph

__all__ = ["Measured", "held_out_pole", "measure", "pairs"]

_NEGATING = ("un", "in", "im", "il", "ir", "non", "non-", "dis")


def pairs() -> list[tuple[str, str, str]]:
    """(adjective, its first antonym, the attribute noun) for each sampled head synset."""
    wn = wordnet_graph.graph()
    out = []
    for synset in range(len(wn.pos)):
        if wn.pos[synset] != wordnet_graph.ADJ:
            continue
        nouns = wn.linked(synset, wordnet_graph.ATTRIBUTE)
        if not nouns:
            continue
        offsets = wn.lemmas.offsets
        for sense in range(offsets[synset], offsets[synset + 1]):
            opposite = wn.related(sense, wordnet_graph.ANTONYM)
            if opposite:
                out.append((wn.lemma(sense), wn.lemma(opposite[0]), wn.words_of(nouns[0])[0]))
                break
    return out


def held_out_pole(adjective: str, antonym: str) -> int:
    """+1 / -1 by markedness, 0 when the pair's shapes say nothing."""
    for prefix in _NEGATING:
        if antonym == prefix + adjective:
            return 1
        if adjective == prefix + antonym:
            return -1
    if adjective.endswith("ful") and antonym.endswith("less") and adjective[:-3] == antonym[:-4]:
        return 1
    if adjective.endswith("less") and antonym.endswith("ful") and adjective[:-4] == antonym[:-3]:
        return -1
    return 0


@dataclasses.dataclass
class Measured:
    sampled: int = 0  # adjective/attribute pairs from WordNet's relation
    decided: int = 0  # where `attributes` gives the noun a pole (coverage)
    judged: int = 0  # decided, and the held-out rule decides too
    agree: int = 0
    disagreements: list[tuple[str, str, str, int]] = dataclasses.field(default_factory=list)


def measure() -> Measured:
    m = Measured()
    for adjective, antonym, noun in pairs():
        m.sampled += 1
        pole = next((a.direction for a in wordnet.attributes(adjective) if a.noun == noun), 0)
        if pole == 0:
            continue
        m.decided += 1
        truth = held_out_pole(adjective, antonym)
        if truth:
            m.judged += 1
            if truth == pole:
                m.agree += 1
            else:
                m.disagreements.append((adjective, antonym, noun, pole))
    return m
