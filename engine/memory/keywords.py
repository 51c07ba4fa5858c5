"""Keywords without an LLM: content words, normalised by Porter stemming so overlap is meaningful."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from functools import lru_cache

# A letter of any script ("é", "ü", "д", "東"); apostrophes and hyphens only inside a word.
_LETTER = r"[^\W\d_]"
_TOKEN = re.compile(rf"{_LETTER}(?:{_LETTER}|['\-])*{_LETTER}|{_LETTER}|\d+")

STOPWORDS = frozenset(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each even ever every few for from further get gets getting
    got had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just
    let's like lot lots me more most much must mustn't my myself no nor not now of off oh ok okay
    on once one only or other ought our ours ourselves out over own really said same say says she
    she'd she'll she's should shouldn't so some such than that that's the their theirs them
    themselves then there there's these they they'd they'll they're they've thing things this
    those through to too under until up upon us very was wasn't we we'd we'll we're we've well
    were weren't what what's when when's where where's which while who who's whom why why's will
    with won't would wouldn't yeah yes yet you you'd you'll you're you've your yours yourself
    yourselves hey hi hello thanks thank great good nice cool wow sure know think want going
    go make made way time really actually pretty feel feeling yeah definitely totally
    """.split()
)


@lru_cache(maxsize=1)
def _stemmer():
    # snowballstemmer imports in milliseconds; nltk takes seconds (it is used for the LoCoMo
    # metric only, where the official Porter variant matters).
    import snowballstemmer

    return snowballstemmer.stemmer("english")


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    return _stemmer().stemWord(word.lower())


def tokens(text: str) -> list[str]:
    """Lower-case word tokens (apostrophes kept inside words), accents kept: "belém"."""
    # NFC first: a decomposed "é" (e + combining accent) would otherwise end the word.
    return [t.lower().strip("'-") for t in _TOKEN.findall(unicodedata.normalize("NFC", text))]


def content_words(text: str) -> list[str]:
    """Tokens that carry meaning: no stopwords, no one-letter words."""
    return [t for t in tokens(text) if len(t) > 1 and t not in STOPWORDS and not t.isdigit()]


def normalise(words: list[str]) -> set[str]:
    """Stemmed, de-duplicated keyword set (for Jaccard overlap)."""
    return {stem(w) for w in words if w}


def extract(text: str, limit: int = 8) -> list[str]:
    """The most frequent content words of a text, most frequent first.

    Words are counted by stem ("hiking" and "hikes" are one keyword) and returned in the first
    surface form seen, so people can read them; compare them with `overlap`.
    """
    counts: Counter[str] = Counter()
    surface: dict[str, str] = {}
    for word in content_words(text):
        key = stem(word)
        counts[key] += 1
        surface.setdefault(key, word)
    return [surface[key] for key, _ in counts.most_common(limit)]


def overlap(a: list[str] | tuple[str, ...], b: list[str] | tuple[str, ...]) -> float:
    """Jaccard overlap of two keyword lists after stemming."""
    return jaccard(normalise(list(a)), normalise(list(b)))


def jaccard(
    a: set[str] | list[str] | tuple[str, ...], b: set[str] | list[str] | tuple[str, ...]
) -> float:
    sa, sb = set(a), set(b)
    if not sa or not sb:
        return 0.0
    return len(sa & sb) / len(sa | sb)


@lru_cache(maxsize=1)
def _porter():
    import snowballstemmer

    return snowballstemmer.stemmer("porter")  # the algorithm of FTS5's porter tokenizer


def fold(word: str) -> str:
    """A word lower-case and without the accents FTS5's unicode61 tokenizer with
    remove_diacritics 2 (engine/vault/schema.py FTS_TOKENIZER) takes off ("Belém" -> "belem"),
    as it stores it. unicode61 folds Latin letters only: Greek "Αθήνα" is stored "αθήνα" and
    Cyrillic "ёлка" as it is (checked against the tokenizer, tests/test_accented_words.py);
    folded as Latin, their look-up in the index found nothing."""
    # NFD, not NFKD: unicode61 keeps ligatures such as "ﬁ" as they are.
    kept, base = [], ""
    for char in unicodedata.normalize("NFD", word):
        if not unicodedata.combining(char):
            base = char
        elif _latin(base):
            continue
        kept.append(char)
    return unicodedata.normalize("NFC", "".join(kept)).lower()


def _latin(char: str) -> bool:
    """Latin letters (up to Latin Extended-B, and Latin Extended Additional), whose accents
    unicode61 removes."""
    code = ord(char) if char else 0
    return code < 0x250 or 0x1E00 <= code <= 0x1EFF


@lru_cache(maxsize=100_000)  # retrieval stems every word of ~100 candidate turns per query
def fts_term(word: str) -> str:
    """A word as FTS5's porter tokenizer stores it ("pastéis" -> "pastei")."""
    return _porter().stemWord(fold(word))


def search_words(text: str) -> list[str]:
    """A question's content words as a search matches them: a possessive's "'s" dropped ("my
    cat's name" looks for "cat"; FTS5 splits "cat's" in two, so the quoted phrase "cat's" only
    matched a text saying "cat's", never "I have a cat")."""
    return [w.removesuffix("'s") for w in content_words(text) if w.removesuffix("'s")]


# A question that asks for a name says "name"; the answer says "called" as often as "named"
# ("My dog is called Biscuit"). Searched for "name" alone, a rarer "named" elsewhere ("My mum
# adopted a cat named Pickle") outranked the exchange that answers "What is my dog's name?".
# One way only: "What is my dog called?" already finds "called", and "named" added to it would
# bring the cat back. No development question names a name (the figures are unchanged).
_ASKED_AS = {"name": ("called",), "names": ("called",), "named": ("called",)}


def query_words(text: str) -> list[str]:
    """A question's search words (search_words) with the words an answer says instead."""
    words = search_words(text)
    return words + [also for w in words for also in _ASKED_AS.get(w, ()) if also not in words]


def fts_query(text: str, limit: int = 12, skip: set[str] | frozenset[str] = frozenset()) -> str:
    """An FTS5 MATCH expression: the query's words (query_words) OR-ed, each quoted (no syntax
    errors).

    Words in `skip` (e.g. terms that occur in most rows) are left out."""
    seen: list[str] = []
    for word in query_words(text):
        if word in skip:
            continue
        word = word.replace('"', "")
        if word and word not in seen:
            seen.append(word)
    return " OR ".join(f'"{w}"' for w in seen[:limit])
