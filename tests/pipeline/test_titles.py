from groove.pipeline.titles import content_words, coverage


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
