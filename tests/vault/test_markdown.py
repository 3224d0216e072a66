from groove.vault.markdown import parse_note

NOTE = """---
title: Sync guide
aliases: [Synchronise, syncing]
tags: [sync, "guide"]
date: 2026-03-01
---
# Sync guide

Intro text with a #inline/tag and a [[Other note#Part|alias]] and ![[pic.png]].

## Troubleshooting

### Conflicts

Two devices edited the same note.

```python
# not a heading
x = "[[not a link]] #nottag"
```
"""


def test_frontmatter_fields_are_read():
    n = parse_note("Sync.md", NOTE.encode())
    assert n.title == "Sync guide"
    assert n.aliases == ["Synchronise", "syncing"]
    assert n.date == "2026-03-01"
    assert n.tags == ["sync", "guide", "inline/tag"]


def test_sections_become_chunks_with_heading_path_context_and_offsets():
    data = NOTE.encode()
    n = parse_note("Sync.md", data)
    assert [c.heading for c in n.chunks] == ["Sync guide", "Conflicts"]
    conflicts = n.chunks[1]
    assert conflicts.heading_path == ["Sync guide", "Troubleshooting", "Conflicts"]
    assert conflicts.context == "Sync guide > Troubleshooting > Conflicts"
    assert data[conflicts.byte_start:conflicts.byte_end].decode() == conflicts.content
    lines = NOTE.split("\n")
    assert lines[conflicts.line_start - 1] == "## Troubleshooting"  # heading-only parent joins its child
    assert lines[conflicts.line_end - 1] == "```"


def test_code_blocks_hide_headings_links_and_tags():
    n = parse_note("Sync.md", NOTE.encode())
    assert all("not a heading" != c.heading for c in n.chunks)
    assert [(ln.target, ln.heading, ln.alias, ln.embed) for ln in n.links] == [
        ("Other note", "Part", "alias", False),
        ("pic.png", None, None, True),
    ]
    assert "nottag" not in n.tags


def test_long_sections_split_between_blocks_and_never_inside_code():
    paras = "\n\n".join(f"Paragraph {i} " + "word " * 60 for i in range(12))
    code = "```\n" + "\n".join(f"line {i} " + "x " * 20 for i in range(40)) + "\n```\n"
    text = f"# Long\n\n{paras}\n\n{code}\nAfter code.\n"
    n = parse_note("Long.md", text.encode(), chunk_tokens=200)
    assert len(n.chunks) > 3
    for c in n.chunks:
        assert c.content.count("```") in (0, 2), "a code block was cut in half"
    data = text.encode()
    for c in n.chunks:
        assert data[c.byte_start:c.byte_end].decode() == c.content


def test_broken_yaml_frontmatter_indexes_the_body_and_warns():
    n = parse_note("b.md", b"---\ntitle: [unclosed\n---\n# Body\n\ntext\n")
    assert any("broken YAML" in w for w in n.warnings)
    assert n.chunks and "text" in n.chunks[0].content
    assert n.title == "b"


def test_invalid_utf8_is_decoded_with_replacement_and_offsets_stay_in_bytes():
    data = b"# T\n\nbad \xff\xfe bytes\n\n## Next\n\nok\n"
    n = parse_note("u.md", data)
    assert any("UTF-8" in w for w in n.warnings)
    nxt = n.chunks[-1]
    assert data[nxt.byte_start:nxt.byte_end] == b"## Next\n\nok\n"


def test_crlf_files_keep_exact_offsets():
    text = "# A\r\n\r\nline one\r\n\r\n## B\r\n\r\nline two\r\n"
    data = text.encode()
    n = parse_note("c.md", data)
    assert [c.heading for c in n.chunks] == ["A", "B"]
    for c in n.chunks:
        assert data[c.byte_start:c.byte_end].decode() == c.content


def test_empty_note_has_no_chunks():
    assert parse_note("e.md", b"").chunks == []
    assert parse_note("e.md", b"---\ntags: [a]\n---\n").chunks == []


def test_japanese_offsets_are_bytes():
    text = "# 日本語\n\n脚注の使い方。\n\n## 翻訳\n\n翻訳のテスト。\n"
    data = text.encode()
    n = parse_note("ja.md", data)
    for c in n.chunks:
        assert data[c.byte_start:c.byte_end].decode() == c.content


# --- bounded cost (issue 15: D2, D3, D15) -------------------------------------------------------


def test_a_yaml_alias_bomb_is_refused_and_the_body_still_indexed():
    lines = ['a0: &a0 ["lol"]'] + [f"a{i}: &a{i} [" + ",".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    note = "---\n" + "\n".join(lines) + "\ntitle: Bomb\n---\n# Body\n\nthe body text\n"
    n = parse_note("bomb.md", note.encode())
    assert n.frontmatter == {} and n.title == "bomb"
    assert any("alias bomb" in w for w in n.warnings)
    assert "the body text" in n.chunks[0].content


def test_a_few_yaml_aliases_are_fine():
    note = "---\nbase: &b [x, y]\ntags: *b\ntitle: Shared\n---\nbody\n"
    n = parse_note("a.md", note.encode())
    assert n.title == "Shared" and n.tags == ["x", "y"] and n.warnings == []


def test_a_self_referencing_yaml_alias_is_refused():
    n = parse_note("a.md", b"---\na: &a [*a]\ntitle: Loop\n---\nbody\n")
    assert n.frontmatter == {} and any("refers to the node that contains it" in w for w in n.warnings)


def test_deeply_nested_frontmatter_is_refused():
    deep = "a: " + "[" * 150 + "]" * 150
    n = parse_note("a.md", f"---\n{deep}\n---\nbody\n".encode())
    assert n.frontmatter == {} and n.warnings and n.chunks


def test_a_quote_nested_500_deep_is_split_by_lines_with_a_warning():
    n = parse_note("q.md", (">" * 500 + " x\n\n# Next\n\nmore text\n").encode())
    assert any("nested more than" in w for w in n.warnings)
    assert [c.heading for c in n.chunks] == ["", "Next"]


def test_a_list_nested_200_levels_keeps_its_text():
    text = "# Top\n\n" + "".join("  " * i + "- item\n" for i in range(200)) + "\nend of note\n"
    n = parse_note("l.md", text.encode())
    assert any("nested more than" in w for w in n.warnings)
    assert "".join(c.content for c in n.chunks).count("- item") == 200
    assert "end of note" in n.chunks[-1].content


def test_moderate_nesting_still_uses_the_markdown_parser():
    text = "".join("  " * i + "- item\n" for i in range(30)) + "\n# Heading\n\nx\n"
    n = parse_note("l.md", text.encode())
    assert n.warnings == [] and [c.heading for c in n.chunks] == ["", "Heading"]


def test_deep_indentation_without_markers_is_not_nesting():
    text = "# Art\n\n```\n" + "".join(" " * (4 * i) + "*\n" for i in range(100)) + "```\n"
    assert parse_note("art.md", text.encode()).warnings == []


def test_a_utf8_bom_does_not_hide_the_frontmatter():
    n = parse_note("b.md", b"\xef\xbb\xbf---\ntitle: Behind a BOM\ntags: [t]\n---\n# H\n\nx\n")
    assert n.title == "Behind a BOM" and n.tags == ["t"] and n.warnings == []
    assert n.chunks[0].byte_start == len(b"---\ntitle: Behind a BOM\ntags: [t]\n---\n")
    assert n.chunks[0].line_start == 5


def test_utf16_and_utf32_notes_are_decoded():
    for codec in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be"):
        n = parse_note("u.md", "\ufeff---\ntitle: Wide\n---\n# 見出し\n\n本文\n".encode(codec))
        assert n.title == "Wide", codec
        assert n.chunks[0].heading == "見出し" and "本文" in n.chunks[0].content
        assert n.chunks[0].line_start == 4
