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
