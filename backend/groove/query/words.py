"""The word rules of Chinese and Korean queries (ADR 0160), for ``query``.

Chinese: a sentence is cut at characters that are nearly always grammar and
searched by the overlapping bigrams of what is left, less question words.
Korean: a word loses its particle or ending and is searched by its stem.
Lists, not a dictionary: a word they get wrong is searched a little wrong,
never refused.
"""

from __future__ import annotations

SHORT_LEN = 2  # query.SHORT_LEN: what the bigram table holds

# Chinese (ADR 0160): characters that are nearly always grammar, where a
# sentence is cut before its bigrams are taken, and bigrams that are question
# or auxiliary words. Both match almost every page, so they would only add noise.
# Simplified, then the Traditional forms that differ.
HAN_FUNCTION_CHARS = frozenset("的了吗呢吧啊呀嘛和与及或把被给在是我你您他她它很也都就又这那哪么之"
                               "嗎與給這麼")
HAN_STOP_BIGRAMS = frozenset(
    """如何 怎么 怎样 什么 为什 为何 可以 能否 是否 应该 需要 一下 一个 一些 哪些 哪个 这个 那个
    这些 那些 自己 时候 可能 能够 没有 有没 已经 如果 然后 还是 或者 以及 进行 还能 能不 不能 一共 之间
    怎麼 怎樣 什麼 為什 為何 應該 一個 哪個 這個 那個 這些 時候 能夠 沒有 有沒 已經 然後 還是 進行 還能 之間""".split()
)

# Korean (ADR 0160): a word (eojeol) is a stem followed by particles or
# endings. A word of 3+ syllables loses its longest listed tail, then a
# verb-making 하/되/시키; when that would leave one syllable (끌어서, 탭이나)
# the word is kept as written. A two-syllable word stays whole (화면, 일기,
# 경로 end in particle-like syllables), unless it ends in an object, topic or
# place particle (줄을, 앱에). Function words (어떻게, 싶어요, 하고) are dropped.
HANGUL_TAILS = tuple(sorted(
    """을 를 이 가 은 는 의 에 와 과 도 만 로 으로 에서 에게 에는 에도 에서는 에서도 으로는 로는 으로도 로도
    까지 부터 처럼 보다 마다 끼리 별 별로 이나 나 이라는 라는 이란 란 이랑 랑 한테 께 에게서
    들 들이 들을 들의 들은 들도 들에
    하려면 하려고 하는 하고 하면 하기 하게 하여 해서 해요 했어요 합니다 하나요 할까요 할 한 해야 하지 했는데 하는데
    려면 으려면 려고 으면 면 고 는데 은데 어서 아서 어요 아요 나요 까요 을까요 세요 으세요 습니다 니다
    어야 아야 지만 는지 은지 인가요 가요 게 기 던 었 았
    되는 되고 되면 되어 돼요 됩니다 된 될 되나요 시키는 시키기""".split(), key=len, reverse=True))
HANGUL_TAIL_SET = frozenset(HANGUL_TAILS)
HANGUL_VERBALIZERS = ("하", "되", "시키")
HANGUL_PARTICLE_ENDS = frozenset("을를은는에")
HANGUL_STOP_STEMS = frozenset(
    """어떻게 어떤 무엇 무슨 어디 언제 누가 누구 이런 그런 저런 이것 그것 저것 여기 거기 어느 얼마 얼마나
    있나요 있어요 있을까요 있습니다 있는지 없나요 없어요 하나요 해요 합니다 할까요 되나요 될까요 돼요 됩니다
    싶어요 싶은데 싶습니다 주세요 알려 알려줘 가능 방법 경우 그리고 또는 그러면 하나 같이 모든 정도 위해 위한
    대한 통해 이번 다른 여러 않고 않는 않아 보고 있던 있는 좀 더 잘 및
    하고 하면 해서 해도 하지 하기 해야 되고 되면 되어 돼서 있고 있어 있을 없고 없이 없는 같은 보면 싶은""".split()
)


def hangul_stem(run: str) -> str:
    """The stem of a Hangul word: its longest listed particle or ending cut
    once, then a verb-making 하/되/시키 (동기화하려면 -> 동기화), or the word as
    written when the cut would leave one syllable. A two-syllable word is its
    own stem, or one syllable (searched as nothing) when it ends in an
    object, topic or place particle."""
    if len(run) <= SHORT_LEN:
        return run[:1] if run[-1] in HANGUL_PARTICLE_ENDS else run
    stem = run
    for tail in HANGUL_TAILS:
        if run.endswith(tail) and len(run) > len(tail):
            stem = run[: -len(tail)]
            break
    if len(stem) < SHORT_LEN:
        return run  # a one-syllable stem (끌어서, 탭이나): the word as written is what a page shares
    for v in HANGUL_VERBALIZERS:
        if stem.endswith(v) and len(stem) - len(v) >= SHORT_LEN:
            return stem[: -len(v)]
    return stem


def hangul_terms(run: str) -> tuple[list[str], list[str]]:
    """(phrases, short terms) of one Hangul run: its stem as a bigram-table
    term, however long (a longer one is searched as the phrase of its
    bigrams, ``shortcjk.as_bigrams``), so one bm25 ranks all of a Korean
    query's words; nothing for a function word (어떻게, 있나요) or a
    one-syllable remainder."""
    if run in HANGUL_TAIL_SET or run in HANGUL_STOP_STEMS:
        return [], []  # a particle alone (Obsidian에서) or a function word
    stem = hangul_stem(run)
    if len(stem) < SHORT_LEN or stem in HANGUL_STOP_STEMS:
        return [], []
    return [], [stem]


def han_segments(run: str) -> list[str]:
    """A Chinese sentence (a kana-free kanji run) cut at its grammar
    characters (的, 在, 吗 …): the stretches between are where words are."""
    return split_at(run, HAN_FUNCTION_CHARS.__contains__)


def split_at(text: str, is_sep) -> list[str]:  # noqa: ANN001 - a predicate on one character
    """The non-empty stretches of ``text`` between characters ``is_sep`` marks."""
    out: list[str] = []
    cur = ""
    for ch in text:
        if is_sep(ch):
            if cur:
                out.append(cur)
            cur = ""
        else:
            cur += ch
    if cur:
        out.append(cur)
    return out


def han_bigrams(run: str) -> list[str]:
    """The overlapping bigrams of a Chinese sentence's segments, as Lucene's
    CJK analyzer indexes text, less question and auxiliary words (ADR 0160).
    They go to the bigram table, which already holds every bigram of the
    vault's kanji runs: no dictionary and no re-index."""
    out: list[str] = []
    for seg in han_segments(run):
        out += [seg[i:i + SHORT_LEN] for i in range(len(seg) - 1) if seg[i:i + SHORT_LEN] not in HAN_STOP_BIGRAMS]
    return out


def han_terms(run: str) -> tuple[list[str], list[str]]:
    """(phrases, short terms) of a Chinese sentence: the whole run stays a
    phrase (no sentence is on a page verbatim, but a kanji compound typed
    alone, 東京都庁舎, is) and its words are searched as bigrams.
    ``bench/cjk_segmenters.py`` swaps in other ways to cut it."""
    return [run], han_bigrams(run)

# English function words (ADR 0255): a query's words that name nothing, so
# match_spans does not light them (`and` in "keep notes in sync between phone
# and computer") unless the query quotes them. Highlighting only: the legs
# search the query as typed, and the title leg keeps its own list.
ENGLISH_FUNCTION_WORDS = frozenset(
    """a an the and or but nor so yet if then than as at by for from in into of off on onto out over
    to up with without within between among about above below under after before during through
    across against along around behind beyond near since until upon via per
    i me my mine we us our ours you your yours he him his she her hers it its they them their theirs
    this that these those there here what which who whom whose when where why how
    am is are was were be been being do does did doing done have has had having
    can could shall should will would may might must ought
    not no all any both each every either neither some such own same other another
    just only also too very more most much many few less least again ever even still
    don doesn didn isn aren wasn weren won wouldn shouldn couldn haven hasn""".split()  # don't: don + t
)
