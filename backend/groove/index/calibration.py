"""The vault's own yardstick for ``low_confidence``: how close questions it
cannot answer come to its passages (ADR 0103).

At index time a fixed set of everyday questions (the probes: weather, pets,
films, car repair … in English and Japanese, nothing a note-taking vault is
usually about) is embedded as queries, and each probe's best cosine to the
vault's chunks is measured. Their median and robust spread (1.4826 × MAD)
are stored in the index meta. A search then reads its own best cosine in
those units: "how many spreads above an unrelated question is my best
passage" (``pipeline/confidence.py``). The yardstick moves with the model,
the chunking and the vault — raw cosines do not transfer (e5's sit at
0.8–0.9 for everything).

The median and MAD are robust on purpose: when a vault *is* about one of the
probes' topics (a gardening vault and the aphid probe), that probe lands in
the upper tail and moves neither.

Cost: one batch of probe embeddings (1.2 s for 96 probes with the default
model on 2 cores) and one nearest-chunk lookup per probe. For the default
model the probe vectors ship with groove (``probe_vectors.npz``), so a
first index does not pay for them. Redone when
the model, the passage recipe or the chunk budget changed, or when the
number of chunks moved by more than ``RECALIBRATE_SHARE`` since the last
calibration; otherwise an incremental reindex keeps it.

A query written in a script the vault hardly contains (Japanese asked of
English notes) is read differently (ADR 0131): its best cosine is a
cross-language match, lower for everything, so it is compared with the
probes of its own language alone (``by_language``), and the vault's
``letters`` shares tell the rule which of its words are no evidence.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

# The query's character classes as regexes (one definition, beside ``char_type``).
from ..query.chars import ASCII_LETTER, CJK_LETTER, HANGUL_LETTER, KANA_LETTER

if TYPE_CHECKING:
    from ..models.base import Embedder
    from ..storage.db import Index
    from ..wire.status_types import LowConfidenceStatus

META_KEY = "confidence_calibration"
VERSION = 1
RECALIBRATE_SHARE = 0.10
# A floor for the spread: a vault of one or two chunks can put every probe at
# nearly the same distance, and the rule divides by the spread.
MIN_SCALE = 1e-3
# A script below this share of the vault's letters is "absent": the vault is
# not written in it, so a query in it can only match across languages.
ABSENT_SCRIPT_SHARE = 0.02
# Letters are counted on at most this many chunks (every n-th by id).
LETTER_SAMPLE = 2000
# Below this share of its CJK letters in kana, a vault is Chinese: Japanese
# text is about half kana, Chinese has none.
CHINESE_KANA_SHARE = 0.05
LETTER = re.compile(r"[^\W\d_]")  # any letter (str.isalpha, near enough)
SCRIPT_LANGUAGE = {"latin": "en", "cjk": "ja"}  # whose probes stand for a query in the script
# Scripts of ADR 0162, read against their own language's probes wherever
# they are asked: "han" is a kana-free CJK query (Chinese), "hangul" Korean.
OWN_LANGUAGE = {"han": "zh", "hangul": "ko"}

# Everyday questions from domains the bench's no-answer sets do not use
# (bench/golden/no-answer-*.jsonl: cooking, sports, medicine, law,
# programming, history, travel, finance), so recall on those sets is not
# measured on the probes' own topics.
PROBES_EN: tuple[str, ...] = (
    "will it rain this weekend", "why is the sky blue", "how often should I walk my dog",
    "why does my cat knock things off the table", "when to plant tomato seedlings outdoors",
    "how to get rid of aphids on roses", "how to tune a guitar by ear", "who composed the four seasons",
    "best science fiction movies of the nineties", "who directed the film Jaws",
    "how to tie a tie in a windsor knot", "what colors go well with navy blue",
    "how to get a toddler to sleep through the night", "what age to start teaching a child to read",
    "how far is the moon from the earth", "what is a black hole", "what is the longest river in Africa",
    "how many countries are in South America", "boiling point of water at high altitude",
    "how do magnets work", "how often should I change the oil in my car", "why is my check engine light on",
    "how to fix a leaking kitchen faucet", "how to paint a room without streaks",
    "where to buy a cheap used laptop", "is an extended warranty worth buying",
    "how to write a cover letter for a job", "questions to ask at the end of an interview",
    "how to apologize to a friend", "ideas for a first date", "how to mix paint to get brown",
    "who painted the starry night", "summary of pride and prejudice",
    "books similar to the lord of the rings", "how to calculate the area of a circle",
    "what is a prime number", "how do bees make honey", "why do leaves change color in autumn",
    "how to beat the final boss in a video game", "board games for six players",
    "what shutter speed for sports photos", "how to photograph the night sky",
    "how to remove a wine stain from a carpet", "how to fold a fitted sheet",
    "how to make a paper airplane fly far", "how to replace a light bulb in a ceiling fan",
    "what to write in a wedding card", "how to knit a scarf for beginners",
)
PROBES_JA: tuple[str, ...] = (
    "週末は雨が降りますか", "空が青いのはなぜ", "犬の散歩はどれくらい必要", "猫が棚の物を落とす理由",
    "トマトの苗を植える時期", "バラのアブラムシの駆除", "ギターのチューニングの仕方", "四季を作曲したのは誰",
    "90年代のおすすめSF映画", "映画ジョーズの監督は誰", "ネクタイの結び方", "紺色に合う服の色",
    "子どもが夜ぐっすり眠るには", "子どもに字を教え始める年齢", "月までの距離はどれくらい", "ブラックホールとは何か",
    "アフリカで一番長い川", "南米にある国の数", "高地で水が沸騰する温度", "磁石がくっつく仕組み",
    "車のオイル交換の頻度", "エンジンの警告灯がついた", "台所の蛇口の水漏れの直し方", "部屋の壁をむらなく塗る",
    "中古のパソコンを安く買う", "延長保証に入るべきか", "履歴書の志望動機の書き方", "面接の最後にする質問",
    "友達に上手に謝る方法", "初デートのおすすめの場所", "絵の具で茶色を作る", "星月夜を描いた画家",
    "高慢と偏見のあらすじ", "指輪物語に似た小説", "円の面積の求め方", "素数とは何か",
    "ミツバチがはちみつを作る仕組み", "秋に葉の色が変わる理由", "ゲームのラスボスの倒し方", "6人で遊べるボードゲーム",
    "スポーツ写真のシャッタースピード", "星空をきれいに撮る方法", "カーペットのワインのしみの落とし方",
    "ボックスシーツのたたみ方", "紙飛行機を遠くに飛ばすコツ", "天井の電球の交換の仕方", "結婚式のお祝いの言葉",
    "初心者向けのマフラーの編み方",
)
# The same questions in Chinese and Korean (ADR 0162): a vault written in one
# of them is read against its own language's probes.
PROBES_ZH: tuple[str, ...] = (
    "这个周末会下雨吗", "天空为什么是蓝色的", "狗每天要遛多久",
    "猫为什么喜欢把桌上的东西推下去", "番茄苗什么时候移栽到室外", "怎么除掉玫瑰上的蚜虫",
    "怎么凭耳朵给吉他调音", "四季是谁作曲的", "九十年代最好看的科幻电影",
    "电影大白鲨的导演是谁", "温莎结领带怎么打", "藏青色和什么颜色搭配好看",
    "怎么让幼儿一觉睡到天亮", "几岁开始教孩子认字", "月球离地球有多远",
    "黑洞是什么", "非洲最长的河流", "南美洲有多少个国家",
    "高海拔地区水的沸点", "磁铁是怎么吸住东西的", "汽车多久换一次机油",
    "发动机故障灯亮了怎么办", "厨房水龙头漏水怎么修", "刷墙怎样才不留刷痕",
    "去哪里买便宜的二手电脑", "延长保修值得买吗", "求职信怎么写",
    "面试最后可以问面试官什么问题", "怎么向朋友道歉", "第一次约会去哪里好",
    "用颜料怎么调出棕色", "星月夜是谁画的", "傲慢与偏见的故事梗概",
    "和指环王类似的小说", "圆的面积怎么算", "什么是质数",
    "蜜蜂是怎么酿蜂蜜的", "秋天树叶为什么会变色", "游戏最终关的大魔王怎么打",
    "适合六个人玩的桌游", "拍体育照片用多快的快门", "怎么拍星空",
    "地毯上的红酒渍怎么去掉", "床笠怎么叠", "纸飞机怎么折才飞得远",
    "吊扇上的灯泡怎么换", "婚礼贺卡上写什么祝福语", "新手怎么织围巾",
)
PROBES_KO: tuple[str, ...] = (
    "이번 주말에 비가 올까요", "하늘은 왜 파란색일까", "강아지 산책은 얼마나 자주 시켜야 하나요",
    "고양이가 물건을 떨어뜨리는 이유", "토마토 모종을 밖에 심는 시기", "장미에 생긴 진딧물 없애는 법",
    "귀로 기타 조율하는 방법", "사계를 작곡한 사람은 누구", "90년대 최고의 SF 영화",
    "영화 죠스의 감독은 누구", "윈저 노트로 넥타이 매는 법", "네이비와 잘 어울리는 색",
    "아기가 밤에 깨지 않고 자게 하는 방법", "아이에게 글자를 가르치기 시작하는 나이", "달까지의 거리는 얼마나 될까",
    "블랙홀이란 무엇인가", "아프리카에서 가장 긴 강", "남아메리카에 있는 나라의 수",
    "고지대에서 물이 끓는 온도", "자석이 붙는 원리", "자동차 엔진오일 교체 주기",
    "엔진 경고등이 켜졌어요", "주방 수도꼭지 물이 새는 것 고치기", "얼룩 없이 방 벽을 칠하는 법",
    "중고 노트북을 싸게 사는 곳", "연장 보증을 들 만한가요", "자기소개서 쓰는 법",
    "면접 마지막에 할 질문", "친구에게 사과하는 방법", "첫 데이트 장소 추천",
    "물감으로 갈색 만드는 법", "별이 빛나는 밤을 그린 화가", "오만과 편견 줄거리",
    "반지의 제왕과 비슷한 소설", "원의 넓이 구하는 공식", "소수란 무엇인가",
    "꿀벌이 꿀을 만드는 과정", "가을에 단풍이 드는 이유", "게임 최종 보스 공략",
    "여섯 명이 할 수 있는 보드게임", "스포츠 사진 셔터 속도", "밤하늘 별 사진 찍는 법",
    "카펫에 묻은 와인 얼룩 지우기", "침대 시트 개는 법", "종이비행기 멀리 날리는 법",
    "천장 선풍기 전구 교체하는 법", "결혼식 축하 카드 문구", "초보자를 위한 목도리 뜨는 법",
)
# The pooled yardstick (``median``, ``scale``) stays on the English and
# Japanese probes: Chinese and Korean ones only feed their own languages.
POOLED = len(PROBES_EN) + len(PROBES_JA)
PROBES: tuple[str, ...] = PROBES_EN + PROBES_JA + PROBES_ZH + PROBES_KO
PROBES_SHA = hashlib.sha256("\n".join(PROBES).encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class Calibration:
    """The probes' best-cosine distribution on one index, and what it was measured under."""

    median: float  # median best cosine of the probes
    scale: float  # 1.4826 * MAD of the same (a robust standard deviation)
    probes: int
    chunks: int  # chunks in the index when measured
    model_id: str
    recipe: int
    chunk_tokens: str | None
    probes_sha: str
    seconds: float  # what calibrating cost
    version: int = VERSION
    # Added by ADR 0131; None in a calibration made before it (then the
    # next index run measures it again, and until then every query is read
    # as before).
    by_language: dict[str, list[float]] | None = None  # each language's probes alone: [median, scale]
    # share of the vault's letters: "latin" (ASCII), "cjk" (kanji, kana), and
    # since ADR 0162 "kana" and "hangul"
    letters: dict[str, float] | None = None

    def yardstick(self, script: str | None = None) -> tuple[float, float]:
        """(median, scale) a query in ``script`` is read against: the pooled
        probes; its own language's when the vault lacks the script (ADR
        0131); the Korean probes for Korean, the Chinese ones for a
        kana-free query in a Chinese vault (ADR 0162)."""
        if script is not None and self.by_language:
            if self.reads_own(script):
                median, scale = self.by_language[OWN_LANGUAGE[script]]
                return median, scale
            base = "cjk" if script == "han" else script
            if base in SCRIPT_LANGUAGE and self.absent(base):
                median, scale = self.by_language.get(SCRIPT_LANGUAGE[base], (self.median, self.scale))
                return median, scale
        return self.median, self.scale

    def reads_own(self, script: str | None) -> bool:
        """Whether a query in ``script`` is read against its own language's
        probes by ADR 0162 (Korean; Chinese in a Chinese vault)."""
        own = OWN_LANGUAGE.get(script or "")
        return bool(self.by_language and own in self.by_language) and (script == "hangul" or self.chinese())

    def z(self, best_cosine: float, script: str | None = None) -> float:
        """A best cosine in robust spreads above the median of the probes
        ``yardstick`` picks for the query's script."""
        median, scale = self.yardstick(script)
        return (best_cosine - median) / scale

    def chinese(self) -> bool:
        """Whether the vault is written in Chinese: CJK letters with (almost) no kana."""
        if self.letters is None or "kana" not in self.letters or self.absent("cjk"):
            return False
        return self.letters["kana"] < CHINESE_KANA_SHARE * self.letters["cjk"]

    def absent(self, script: str) -> bool:
        """Whether the vault is (nearly) not written in ``script`` ("han" is
        read as "cjk"; a calibration from before a script was counted knows
        nothing of it, so nothing is absent)."""
        key = "cjk" if script == "han" else script
        if self.letters is None or (key not in self.letters and key not in SCRIPT_LANGUAGE):
            return False
        return self.letters.get(key, 0.0) < ABSENT_SCRIPT_SHARE

    def absent_scripts(self) -> frozenset[str]:
        """The absent scripts among "latin" and "cjk" (what ``status`` lists;
        Korean questions are read against their own probes anyway)."""
        return frozenset(s for s in SCRIPT_LANGUAGE if self.absent(s))


def letter_shares(idx: Index) -> dict[str, float] | None:
    """The share of ASCII and of CJK letters among the letters of (a sample
    of) the vault's chunks; None when the chunks hold no letters."""
    chunks = idx.counts()[1]
    step = max(1, -(-chunks // LETTER_SAMPLE))
    latin = cjk = kana = hangul = total = 0
    for (content,) in idx.conn.execute("SELECT content FROM chunks WHERE id % ? = 0", (step,)):
        total += len(LETTER.findall(content))
        latin += len(ASCII_LETTER.findall(content))
        cjk += len(CJK_LETTER.findall(content))
        kana += len(KANA_LETTER.findall(content))
        hangul += len(HANGUL_LETTER.findall(content))
    if total == 0:
        return None
    return {"latin": round(latin / total, 4), "cjk": round(cjk / total, 4), "kana": round(kana / total, 4),
            "hangul": round(hangul / total, 4)}


def load(idx: Index) -> Calibration | None:
    """The stored calibration, or None when missing or of another format."""
    raw = idx.get_meta(META_KEY)
    if not raw:
        return None
    try:
        d = json.loads(raw)
        if d.get("version") != VERSION:
            return None
        return Calibration(**d)
    except (ValueError, TypeError):
        return None


def _fingerprint(idx: Index) -> tuple[str | None, int, str | None]:
    info = idx.embedder_info() or {}
    return info.get("model_id"), int(info.get("recipe", 1)), idx.get_meta("chunk_tokens")


def is_current(cal: Calibration | None, idx: Index) -> bool:
    """Whether ``cal`` still describes this index: same model, recipe, chunk
    budget and probes, and a chunk count within ``RECALIBRATE_SHARE``."""
    if cal is None or cal.by_language is None:
        return False
    if (cal.model_id, cal.recipe, cal.chunk_tokens) != _fingerprint(idx) or cal.probes_sha != PROBES_SHA:
        return False
    chunks = idx.counts()[1]
    return abs(chunks - cal.chunks) <= RECALIBRATE_SHARE * max(cal.chunks, 1)


def _yardstick(best: np.ndarray) -> tuple[float, float]:
    med = float(np.median(best))
    return med, max(1.4826 * float(np.median(np.abs(best - med))), MIN_SCALE)


def best_cosines(idx: Index, vectors: np.ndarray) -> np.ndarray:
    """Each vector's cosine to its nearest chunk (vectors are unit length)."""
    out = []
    for v in vectors:
        row = idx.conn.execute(
            "SELECT distance FROM vec_chunks WHERE embedding MATCH ? AND k = 1",
            (np.ascontiguousarray(v, dtype=np.float32).tobytes(),),
        ).fetchone()
        assert row is not None  # k = 1 over a table calibration only runs on when it has rows
        out.append(1.0 - row[0] * row[0] / 2.0)
    return np.asarray(out, dtype=np.float64)


# The probes embedded by the default model, shipped with groove: embedding
# them was 1.2 s of every first index, 2 % of indexing 60 notes and more of
# a small vault. Used only for the very model file they were made with
# (its sha256, as the index records it) and these probes; anything else
# embeds them. Remade by `make probe-vectors`.
SHIPPED_PROBE_VECTORS = Path(__file__).with_name("probe_vectors.npz")


def shipped_probe_vectors(model_sha256: str | None, path: Path | None = None) -> np.ndarray | None:
    """The shipped probe vectors when they were made by this model file, else None."""
    if not model_sha256:
        return None
    try:
        with np.load(path or SHIPPED_PROBE_VECTORS, allow_pickle=False) as z:
            if str(z["model_sha256"]) != model_sha256 or str(z["probes_sha"]) != PROBES_SHA:
                return None
            vectors = np.asarray(z["vectors"], dtype=np.float32)
    except (OSError, KeyError, ValueError):
        return None
    return vectors if vectors.ndim == 2 and len(vectors) == len(PROBES) else None


def write_probe_vectors(embedder: Embedder, model_sha256: str, path: Path = SHIPPED_PROBE_VECTORS) -> None:
    """Embed the probes with ``embedder`` and store them for ``shipped_probe_vectors``."""
    vectors = np.asarray(embedder.embed_queries(list(PROBES)), dtype=np.float32)
    with open(path, "wb") as f:
        np.savez(f, model_sha256=np.str_(model_sha256), probes_sha=np.str_(PROBES_SHA), vectors=vectors)


# llama.cpp's kernels differ by CPU (AVX2, AVX-512, AMX, NEON, Metal): the same
# model file embeds a probe a little differently on another machine (max
# |difference| 0.0022 seen on AVX-512/AMX). The shipped vectors stand in for
# this machine's while each checked probe's cosine to its own embedding here
# is at least this (ADR 0155: the yardstick then moves by under a tenth of its
# spread); below it, every probe is embedded here.
SHIPPED_MIN_COSINE = 0.999
SHIPPED_CHECKED = (0, -1)  # the first English and the last Japanese probe: one embedding call


def shipped_agree(shipped: np.ndarray, own: np.ndarray) -> bool:
    """Whether vectors this machine made (``own``) and the shipped ones are
    the same embeddings up to another CPU's rounding: row by row cosine."""
    cos = np.sum(shipped * own, axis=1) / (np.linalg.norm(shipped, axis=1) * np.linalg.norm(own, axis=1))
    return bool(np.all(cos >= SHIPPED_MIN_COSINE))


def probe_vectors(idx: Index, embedder: Embedder) -> np.ndarray:
    """The probes as query vectors of the index's model: the shipped ones when
    this machine's model agrees with them, else embedded here."""
    shipped = shipped_probe_vectors((idx.embedder_info() or {}).get("file_hash"))
    if shipped is not None:
        rows = list(SHIPPED_CHECKED)
        if shipped_agree(shipped[rows], np.asarray(embedder.embed_queries([PROBES[i] for i in rows]))):
            return shipped
    return embedder.embed_queries(list(PROBES))


def calibrate(idx: Index, embedder: Embedder) -> Calibration | None:
    """Measure and store the calibration; None for an index without chunks."""
    chunks = idx.counts()[1]
    if chunks == 0 or not idx.has_vec_table():
        return None
    t0 = time.perf_counter()
    best = best_cosines(idx, probe_vectors(idx, embedder))
    med, scale = _yardstick(best[:POOLED])
    n_en, n_zh = len(PROBES_EN), len(PROBES_ZH)
    by_language = {"en": list(_yardstick(best[:n_en])), "ja": list(_yardstick(best[n_en:POOLED])),
                   "zh": list(_yardstick(best[POOLED:POOLED + n_zh])), "ko": list(_yardstick(best[POOLED + n_zh:]))}
    model_id, recipe, chunk_tokens = _fingerprint(idx)
    cal = Calibration(
        median=med, scale=scale, probes=len(best), chunks=chunks, model_id=model_id or "", recipe=recipe,
        chunk_tokens=chunk_tokens, probes_sha=PROBES_SHA, seconds=round(time.perf_counter() - t0, 3),
        by_language=by_language, letters=letter_shares(idx),
    )
    with idx.atomic():
        idx.set_meta(META_KEY, json.dumps(asdict(cal)))
    return cal


def ensure(idx: Index, embedder: Embedder) -> Calibration | None:
    """The index's calibration, measured again only when it is missing or no
    longer describes the index (see ``is_current``)."""
    cal = load(idx)
    return cal if is_current(cal, idx) else calibrate(idx, embedder)


def status(idx: Index) -> LowConfidenceStatus:
    """For ``index_status``: which low_confidence rule searches use, and why."""
    cal = load(idx)
    if cal is None:
        return {"calibrated": False, "rule": "margin",
                "reason": "no confidence calibration in this index; run `groove index` to add it"}
    out: LowConfidenceStatus = {"calibrated": True, "rule": "calibrated", "probes": cal.probes,
                           "chunks_at_calibration": cal.chunks, "seconds": cal.seconds}
    absent: list[Literal["latin", "cjk"]] = sorted(s for s in ("latin", "cjk") if s in cal.absent_scripts())
    if absent:  # queries in these scripts are read as cross-language (ADR 0131)
        out["cross_language_scripts"] = absent
    if not is_current(cal, idx):
        out["stale"] = True  # still used; the next index run measures it again
    return out
