from groove.pipeline.titles import coverage
from groove.query import parse_query


def content_words(query: str) -> list[str]:
    return parse_query(query).terms.title_words


def named(rt, query: str, restrict: str | None) -> list[int]:
    from groove.pipeline.titles import named_notes

    return named_notes(rt.index, parse_query(query).terms, restrict)


def test_content_words_drop_english_function_words_and_hiragana_particles():
    assert content_words("how do I install a community theme") == ["install", "community", "theme"]
    assert content_words("今日の日付のノートを作るにはどうすればいい？") == ["今日", "日付", "ノート"]


def test_content_words_ignore_exclusions_and_quotes():
    assert content_words('keyboard shortcuts -macOS') == ["keyboard", "shortcuts"]
    assert content_words('"Google Keep" import') == ["google", "keep", "import"]


def test_coverage_is_the_share_of_the_title_the_query_names():
    assert coverage("Themes", ["theme"]) == 5 / 6
    assert coverage("Community plugins", ["community", "theme"]) == 9 / 16
    assert coverage("マップビュー", ["マップビュー"]) == 1.0
    assert coverage("Obsidian CLI", ["cli"]) == 3 / 11


def test_a_title_the_query_does_not_name_has_no_coverage():
    assert coverage("Sales tax", ["vat"]) == 0.0
    assert coverage("", ["x"]) == 0.0


def test_japanese_compounds_cover_titles_through_their_two_character_pieces():
    assert coverage("言語設定", ["表示言語"]) == 0.5
    assert coverage("外観", ["外観"]) == 1.0


def test_korean_words_name_titles_by_their_stems_without_particles():
    # ADR 0160: 태그를 is 태그 + 를; the function words name nothing
    assert content_words("태그 패널에서 태그를 보는 방법") == ["태그", "패널"]
    assert coverage("태그 패널", content_words("태그 패널에서")) == 1.0


def test_a_chinese_sentence_covers_titles_through_its_two_character_pieces():
    assert coverage("语言设置", content_words("怎么切换界面的显示语言")) == 0.5


def test_a_query_names_a_note_only_by_its_whole_title_or_alias(tmp_path, tiny_embedder):
    """ADR 0083: exact names, folded as NFKC + case; part of a name is not a name."""
    from groove import operations
    from helpers import make_runtime

    v = tmp_path / "vault"
    (v / "Plugins").mkdir(parents=True)
    (v / "Plugins" / "Quick switcher.md").write_text("# Quick switcher\n\nOpen notes by name.\n", encoding="utf-8")
    (v / "Obsidian CLI.md").write_text("---\naliases: [command line]\n---\nRun it from a shell.\n", encoding="utf-8")
    (v / "翻訳.md").write_text("# 翻訳\n\n翻訳に協力する。\n", encoding="utf-8")
    rt = make_runtime(v, tiny_embedder, tmp_path)
    operations.reindex(rt)
    doc = dict((p, i) for i, p in rt.index.conn.execute("SELECT id, path FROM documents"))
    assert named(rt, "quick switcher", None) == [doc["Plugins/Quick switcher.md"]]
    assert named(rt, "  Quick   Switcher ", None) == [doc["Plugins/Quick switcher.md"]]
    assert named(rt, '"Obsidian CLI"', None) == [doc["Obsidian CLI.md"]]
    assert named(rt, "ＣＯＭＭＡＮＤ LINE", None) == [doc["Obsidian CLI.md"]]  # an alias, full-width
    assert named(rt, "翻訳", None) == [doc["翻訳.md"]]
    assert named(rt, "quick", None) == []
    assert named(rt, "quick switcher tips", None) == []
    only_cli = f"SELECT {doc['Obsidian CLI.md']}"
    assert named(rt, "quick switcher", only_cli) == []  # filters apply
    (v / "Canvas.md").write_text("Boards.\n", encoding="utf-8")
    operations.reindex(rt)  # the cached names follow the index
    canvas = rt.index.conn.execute("SELECT id FROM documents WHERE path = 'Canvas.md'").fetchone()[0]
    assert named(rt, "canvas", None) == [canvas]


def test_a_cjk_name_answers_to_its_letters_with_or_without_spaces(tmp_path, tiny_embedder):
    """ADR 0224: Korean spacing is loose (사용자 지정 / 사용자지정), and the space
    between Latin and Chinese letters is often not typed (Bases简介), so a CJK
    name is named by its letters whatever the spaces; a Latin one is not."""
    from helpers import indexed_runtime

    rt = indexed_runtime(tmp_path, {"태그 패널.md": "# 태그 패널\n\n태그를 모아 봅니다.\n",
                                    "동기화충돌.md": "# 동기화충돌\n\n두 버전을 남깁니다.\n",
                                    "Bases 简介.md": "# Bases 简介\n\n用数据库视图整理笔记。\n",
                                    "Quick switcher.md": "# Quick switcher\n\nOpen notes by name.\n"}, tiny_embedder)
    doc = dict((p, i) for i, p in rt.index.conn.execute("SELECT id, path FROM documents"))
    assert named(rt, "태그패널", None) == [doc["태그 패널.md"]]
    assert named(rt, "태그 패널", None) == [doc["태그 패널.md"]]
    assert named(rt, "동기화 충돌", None) == [doc["동기화충돌.md"]]
    assert named(rt, "bases简介", None) == [doc["Bases 简介.md"]]
    assert named(rt, "태그", None) == []  # part of a name is still not a name
    assert named(rt, "quickswitcher", None) == []  # Latin names keep their spaces
